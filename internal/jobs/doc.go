// Package jobs is the one mechanism for persisted, leased, chunked jobs: work the portal
// does at an outside service in many calls, which must happen exactly once whatever
// fails meanwhile (the service answering 503, calls timing out, the portal stopped or
// killed mid-call, two instances on one database). Uploads (internal/uploads) and
// corrections (internal/corrections) run on it; fee plans' apply jobs and the message
// outbox are meant to. A job kind adds only its steps; the lifecycle, the leases and the
// exactly-once machinery are here, once.
//
// # The parts
//
//   - Worker: a background worker's lifecycle. Start, goroutines run with Go, wake-ups,
//     pauses a stop cuts short, and Stop: graceful first (no new work is taken, calls in
//     flight end), hard when its context ends (they are cut, and left to be read at the
//     service at the next start).
//   - Lease and Leases: a job runs only on the instance holding its lease, a row in the
//     database (store.JobLeases for a table of jobs), claimed in one statement, renewed
//     while the job runs and released when it ends; a lost lease cancels the work at once.
//     An instance that dies leaves a lease that lapses after its TTL: another instance
//     then takes the job over.
//   - Runner: a kind's Worker, Engine and Queue assembled (NewRunner).
//   - Queue: the job loop. It lists the kind's runnable jobs (Next), runs them one at a
//     time under their leases (Run), and looks again when woken or every renewal, so a
//     job submitted on another instance, or left by one that died, is found. Ordered
//     queues never run a later job while an earlier one is held anywhere.
//   - Engine: takes a job's chunks to an end. Each item is marked sent before its call
//     leaves; an answer makes it done, or failed with the service's reason; a call without
//     an answer leaves it sent, and before anything is sent again the engine waits Settle
//     (the call can no longer land) and lets the kind read the service (Steps.Check). A
//     service that fails is tried again with back-off; one that stops answering is waited
//     for, for hours if need be (WaitFor), the job keeping since when (its page says so)
//     and a person's hurry cutting the pause short; then the unsent items are given up
//     until a retry. Items from a restart, or from an instance that died, go through the
//     same path: a chunk found sent is read before it is sent again. Engine.Try wraps a
//     step that asks the service before sending (what exists by now) in the same retries
//     and waiting.
//   - Chunk, Item, State, Decision: what the engine and a kind talk in. Item states are
//     pending, sent, done, skipped (the service's records say it need not or cannot be
//     sent any more: a component paid meanwhile) and failed; chunk states pending, sent,
//     unknown, confirmed and failed. Classify (BillingFault for the payment service)
//     turns a call's error into the Fault the engine acts on: no answer, refused, down,
//     denied.
//
// # Adding a job kind
//
// Say a fee plan's apply job: students × periods → components, created in batches, each
// component carrying its natural key (student, plan, period) in its notes.
//
//  1. A table for the jobs with a lease: id, state, lease_owner, lease_until,
//     waiting_since (and hurry_at if a person may ask it to try again now), plus what the
//     kind records (who asked, what for, counts); and its items or chunks in a table of
//     their own. Add the table to store.JobTable so store.JobLeases serves its leases.
//  2. A runner in the kind's package holding a jobs.Runner (NewRunner assembles the
//     Worker, the Engine and the Queue): its Classify (BillingFault), the portal's clock,
//     the table's leases (store.JobLeases), the Engine's Config (chunks in flight, waits,
//     Pace for a rate limit: per instance), Next listing the runnable jobs (due ones only:
//     the outbox's sending hours) and Run loading one job, calling Engine.Run with a
//     jobs.Job for it and recording the job's end when Run says it finished. Start and
//     Stop are the Runner's; Wake after a job is submitted; internal/app builds it and
//     hands it to the handlers.
//  3. The jobs.Job for one job (built per run, holding the job's record): its Store
//     (OpenChunks, LoadChunk and SaveChunk on the kind's tables, Waiting and SetWaiting)
//     and its Steps: Send makes one call for a chunk's items (a batch, or one each with
//     Chunk.OneByOne); Check finds at the service items sent without an answer (the apply
//     job searches the student's components for the natural key; the outbox, with no way
//     to ask, decides by its idempotency key); Refused decides the items of a refused call
//     (those the service names fail with its words; the others are sent again). Each
//     decides items with Chunk.Decide; nothing else is the kind's to do. A kind whose call
//     is followed by writing its answer (the audit entry, the ledger: changes.Writer's
//     CreateComponentsApart) implements Apart too: the engine then keeps Concurrency calls
//     on the wire while answers are written, recording each chunk after its answer.
//
// Its metrics come for nothing (observe.go): a runner started with a Watcher in its
// context (internal/app puts the portal's metrics there) reports the items its engine sends
// and decides, and its Census (the jobs Next lists; of them, through store.JobLeases, those
// an instance holds and those with waiting_since set) is read at each scrape, labelled with
// the kind's name (RunnerConfig.Kind, else its table's name without "_jobs").
//
// A change of what exists at the payment service (a component corrected or cancelled, a
// student's record updated, instalments replacing a component) is a correction: its
// steps are internal/corrections' Steps, whichever job carries it.
//
// The clock a runner takes must advance: leases are compared across instances through the
// database, and settling and back-off are waits (internal/app hands the system's clock,
// even when the portal's own is fixed in tests).
package jobs
