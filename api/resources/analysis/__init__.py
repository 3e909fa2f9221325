"""Analyses of finished games: POST/GET /v1/games/{id}/analysis."""
