"""The toolbar (:mod:`.toolbar`: filters, exports, upload), presets (:mod:`.presets`), the
boxes of a view (:mod:`.settings`, :mod:`.inputs`), the missing-data policy (:mod:`.policy`),
restoring the last settings (:mod:`.restore`) and the theme (:mod:`.theme`)."""
