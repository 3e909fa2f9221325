"""The application core: one :class:`~api.service.service.Service`, used by the routes and the jobs alike.
No Flask here (workers import it), and no Redis: that is :mod:`api.store`."""
