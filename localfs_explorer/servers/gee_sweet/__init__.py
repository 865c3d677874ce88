"""mcp-gee-sweet: everything about local files that only this server decides.

Its settings and how they resolve into a policy (:mod:`.policy`, with the assumptions of
:mod:`.profile`), the exact texts of its refusals (:mod:`.messages`), which tools it
registers (:mod:`.registration`), its ``server://auth-status`` resource
(:mod:`.auth_status`), its shipped tool catalog (``data/``) and the :class:`Server` the
registry hands out (:mod:`.server`). The verdict machinery it runs on is
:mod:`.check`.

Kept light: importing the package imports none of its modules.
"""
