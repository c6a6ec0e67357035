"""How an action changes the state: the clientside callbacks of the live edit
(:mod:`.liveedit`), the one server callback that answers what needs Python (:mod:`.edit`), its
actions as small pure functions (:mod:`.actions`) and the sort kept in the URL
(:mod:`.viewstate`)."""
