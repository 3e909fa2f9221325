"""Arenas: rated games between bots, played on the workers through the real game path, with standings.

The parts: ``spec`` (a request checked into the games an arena plays: deals, seatings, caps), ``runner``
(records, starting the games that fit, counting the games that end; used by the Service) and ``standings``
(an arena as clients read it, with intervals from :mod:`api.service.simulations.stats`).
"""
