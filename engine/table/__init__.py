"""Playing hands: the wall, the game, matches, bots, records."""
