"""What a hand is worth: tiles, win evaluation, scoring, snapshots, shanten."""
