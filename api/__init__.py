"""domino-service's API. This package stays free of Flask so workers import api.store and api.service cheaply;
the Flask app is built by api.app.create_app()."""
