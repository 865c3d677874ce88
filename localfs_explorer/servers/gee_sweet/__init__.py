"""mcp-gee-sweet: everything about local files that only this server decides.

Its settings and how they resolve into a policy (:mod:`.policy`, with the assumptions of
:mod:`.profile`), the verdict machinery that policy runs on (:mod:`.check`), the exact
texts of its refusals (:mod:`.messages`), which tools it registers (:mod:`.registration`)
from its shipped catalog (:mod:`.shipped`, ``data/``), its ``server://auth-status``
resource (:mod:`.auth_status`), its exposure walk (:mod:`.exposure`), its
``LOCAL_FILE_ROOTS`` suggestion (:mod:`.suggest`), its live check (:mod:`.verify`), how
it reads its own command line (:mod:`.launch`), and the :class:`Server` its entry point
names (:mod:`.server`).

Kept light: importing the package imports none of its modules.
"""
