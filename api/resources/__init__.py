"""One folder per resource (routes.py + schemas.py); :data:`api.app.RESOURCES` registers them."""
