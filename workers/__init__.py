"""RQ entry points: thin functions that take ids and call api.service."""
