// Package ledger is the portal's own read model of the billing service: every student
// and every bill component the service holds, with all the fields of the contract's
// records (updated_at included), in the portal's database (SQLite or PostgreSQL,
// migration 00007). The service stays the source of truth; the ledger is what the
// portal reads, so a page never waits for a walk of the service and the figures stay
// when the service is down (saying how old they are).
//
// What feeds it:
//   - Syncer, a background worker under a database lease (one instance syncs): the
//     first fill of an empty ledger (a full walk, resumable, its progress stored), an
//     incremental sync every minute (new components newest first until a known one,
//     the payments of the days since the last sync, the newest students: three calls
//     when nothing changed) and a full reconcile at night or on demand that corrects
//     and audits every difference made outside the portal.
//     Every run is recorded (Runs, LastRun: when, how long, what it changed), and a
//     person's request to sync or reconcile now (AskSync, AskReconcile) is a row of the
//     database that the instance holding the lease serves within AskPoll, whichever
//     instance it was made on: every instance shows and does the same.
//   - The service's payment callbacks (the portal's POST /hooks/payments), as notices,
//     not facts: ReceiveCallback verifies one and stores it once per ref_number (a
//     resend with another body is kept aside, never applied), and the Confirmer asks the
//     service what it holds of the reference (one search) and records only that answer,
//     at once and, while the service does not answer, with a back-off under a lease. A
//     callback that disagrees with the service is kept, audited and listed
//     (FlaggedCallbacks); one that waits is counted (UnconfirmedPayments). See callback.go.
//   - Upsert, MarkDeleted, RecordStudents and StudentRemoved, for the portal's own writes
//     (changes.Writer) to record the service's answer at once.
//
// Students are the roster (store's students table): the sync fills it from the
// service's student list, so there is one list of students, not two.
//
// Nothing that depends on the day is stored: late and expired are worked out from the
// due and expiry days and today at query time, by one set of SQL fragments (today.go):
// the second implementation of component.On (internal/component/state.go, on the
// billing package's day rule, the source), pinned to it by a property test
// (TestOnDayIsComponentOn). No other ledger query restates what a component costs today
// or whether it is late or expired, and the Go side of the ledger asks component.On. Two
// summary tables (open components by due day, expiry day, account and name; paid ones
// by payment day, account and due day) are kept in the same transaction as every write,
// so the dashboard and the bills list's totals add up a few thousand groups instead of a
// million rows.
//
// What reads it, every page of the portal: Dashboard (every figure of the principal's
// dashboard), Bills (the bills list: any tab, sort, search and page, with the count and
// totals of the whole result; the totals are kept between pages of one filter until the
// change sequence moves or the day turns, see totals_cache.go) and EachBill (all of a
// list's result, for its exports), Outstanding, Payments/PaymentDays and Accounts (the
// reports, through internal/reports, which use these types under their own names:
// ledger.Dashboard, ledger.OutstandingRow, …), All and AllForStudent (the billing
// client's iterator shape, answered from SQL, for the statement, the student page,
// upcoming dues and uploads), StudentTotals (the roster's what-is-owed column),
// Freshness and ChangeSeq (how fresh the figures are, and a cheap "what changed since"
// for live pages: every write to the components or the roster moves it, the roster's
// writes in internal/store included), Counts, CallbackStats and FlaggedCallbacks (the
// admins' Data page), UnconfirmedPayments (the dashboard's payments announced but not
// confirmed yet).
// A bills query says its tab and order in the ledger's words (Tab, Sort); how a page
// spells them in its URL is internal/billlist's.
//
// The iterators (Payments, All, AllForStudent) read in time linear in their rows,
// whatever the query planner's statistics say (pages.go): a page at a time, each page
// one range of an index in the iterator's order starting exactly after the last row
// (keyset, compared as a row value; INDEXED BY where SQLite without statistics would
// choose otherwise), one page ahead of the caller on another goroutine; a range of due
// or payment days is merged from one such stream per day. The Syncer keeps SQLite's
// statistics as the ledger grows (a full ANALYZE after a first fill, Optimize after each
// reconcile, a migration's new index at start); a ledger filled another way (a test's,
// a benchmark's) calls Optimize to be analysed like a live one.
package ledger
