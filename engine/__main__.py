"""``python -m engine`` runs the mjrules command."""
from .cli import main

main()
