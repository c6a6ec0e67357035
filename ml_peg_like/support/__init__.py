"""What the engine stands on and knows nothing of scoring: reading a user's file safely
(:mod:`.files`), directories only this user can read or plant files in and signing
(:mod:`.private`), the binary cache of parsed raw matrices (:mod:`.rawcache`), modules imported
on first use (:mod:`.lazy`) and where the package's own files are (:mod:`.resources`).

These modules import nothing of the package but its error type; everything else may import them.
"""
