"""The calling app: `GET /v1/app`."""
