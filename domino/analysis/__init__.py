"""Analysis of finished games: move values from the mover's information, and the fair-play screen."""
