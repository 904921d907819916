"""The read models. Importing any of them imports the two whose filters decide each event row's `read_by`
(`events.store.mapper.READ_FLAGS`, migration 0016): a writer's rows get their bits only when both are
known, so a process that reads or writes a read model writes every event with its bits."""

from projections.readmodels import hand_facts as hand_facts
from projections.readmodels import ratings as ratings
