"""``python -m engine`` runs the mjrules command."""
from engine.cli import main

main()
