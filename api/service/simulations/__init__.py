"""Match simulations: bot-against-bot games in bulk, split into chunks that any number of workers run.

A simulation is a spec (rules, one strategy per seat, number of games, seed, duplicate or not) and counts.
Deal ``d`` is the match seeded ``"<seed>:<d>"``. In duplicate mode each deal is played once per distinct
rotation of the strategies over the seats, with the same deal seed, so the luck of the deal cancels out.
Chunk ``c`` plays deals ``[c * chunk_deals, (c + 1) * chunk_deals)``: its counts depend only on the spec and
``c``, never on which worker runs it or how many there are, and the store adds them once per chunk index.

Simulations share the workers: only the first ``window`` chunks are queued at creation, and chunk ``c``, when
it starts, queues chunk ``c + window`` at the back of the queue, behind the chunks of every simulation
created since. A small simulation therefore waits for a few chunks of each running one, not for all of them.

Games run in memory: ``domino.playout`` (the fast core) when every strategy is one it plays natively and
the variant is a line game; otherwise the public engine loop, with search bots on a node ``Budget`` so that
results stay deterministic.

The parts: ``spec`` (a request checked into a spec, with the cost model that sizes chunks), ``play`` (pure
play of a chunk, no Redis), ``stats`` (intervals), ``render`` (a record as clients read it) and ``runner``
(records, queues and the chunk job, used by the Service).
"""

