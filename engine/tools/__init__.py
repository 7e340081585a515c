"""What people run on top: diff, rule sheets, scenarios, simulate, play."""
