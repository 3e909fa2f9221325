"""GET /v1/fairplay and GET /v1/bots/{name}/fairplay: fair-play screens (docs/analysis.md#fair-play-screen)."""
