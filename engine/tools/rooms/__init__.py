"""Rooms: a match played by people and bots together, kept in a database (docs/serve.md "Rooms").

:mod:`engine.tools.rooms.store` is what survives a restart; :mod:`engine.tools.rooms.room`
the match being played, rebuilt from the store. The server's routes are
:mod:`engine.tools.server.rooms_api`.
"""
