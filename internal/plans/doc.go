// Package plans is the school year planned in the portal: fee plans (a named fee with its
// schedule and prices), applying them to students as a job of internal/jobs, discounts
// and scholarships, the correction of what a plan made after it or a discount changed,
// the kartu SPP and the discounts' figures.
//
// # A plan
//
// A Plan has a name ("SPP 2026/2027"), a short stable Code ("SPP2627"; typed, or derived
// from the name and made unique, and never changed once the plan exists), an account
// code, an amount with optional prices of its own per grade or class (a class's wins over
// its grade's; a class's grade is read from how schools write classes: "Kelas 7A", "VIII
// B", "X IPA 1"), a penalty, a frequency (monthly, per semester, once), its first and
// last month, the day of the month its components are due (a shorter month's last day
// when it has none), how many days after that they expire, and, for a one-time fee, a
// number of monthly instalments. Each period's component is named the way bursars write
// it, in Indonesian whatever the reader's language (it is what the service keeps and what
// parents see at the bank): "SPP Juli 2026", "Iuran Semester Ganjil 2026/2027", "Uang
// Pangkal, cicilan 1/3". Its active date is its period's first day: a parent cannot pay
// July's SPP in June.
//
// # The natural key, carried by the service
//
// Every component a plan makes carries "[plan CODE YYYY-MM]" in its notes (the period is
// the month it starts), nothing else: the service's search matches notes exactly, so a
// component sent without an answer is found again by it. With the student (the
// component's NIS) that is the natural key (student, plan, period). The ledger reads the
// key from the notes of every component it writes, whoever made it and however it
// arrived (ledger.ParsePlanKey, table ledger_plan_components): a portal whose database is
// lost and filled again from the service knows every plan component again, and a plan
// made again with the same code finds them. Applying again, to a class that gained a
// student, or after such a loss creates only what is missing.
//
// # Applying a plan
//
// The Preview is computed on the server from the roster, the ledger and the discounts:
// students × periods, what exists (skipped), what each student pays (their grade's or
// class's price, their discount), who is left out and why, and a fingerprint the
// confirmation carries (a preview that changed meanwhile is shown again instead of sent).
//   - Students who are not active (students.Status: graduated, moved, left) are not
//     billed.
//   - A student who joined after the plan began is billed from the month they joined.
//     That month is known from the roster's day they came through the portal (a form, a
//     sheet, a registration: their entry's creation day in the school's zone; a student
//     known only from the service's list has no such day), or else from their first
//     component of this plan (the service's own record: after a loss of the portal's
//     database the roster no longer knows when they came, their components do). The
//     preview says which and when; the apply form's "earlier" choice bills the periods
//     before the first component anyway. A one-time fee is owed whenever one joins.
//   - A component of the plan that was made and cancelled since is not made again unless
//     the form asks to (the "recreate" choice): a bursar who cancelled one month by hand
//     does not see it come back; one who undid an apply can make it again.
//
// Submit stores the job (plan_jobs, plan_items: each item as the preview showed it, days
// and amounts included) and the job loop takes it. The apply job is a kind of
// internal/jobs (runner.go, job.go): ordered, so two applies never race on the same keys
// (a later one starts once the earlier ended, and first leaves out what the ledger now
// holds); chunks of the uploads' batch size sent as one batch each through
// changes.Writer (audited, recorded in the ledger); each item marked sent before its call
// leaves; a call without an answer is looked for at the service, once it can no longer
// land, by the key (per student when the chunk holds fewer students than periods, else
// per period with the notes filter) before anything is sent again; a refused item fails
// with the service's words; a service that stops answering is waited for. The job's page
// shows its progress, what was left and why; a finished apply can be undone once: what it
// made and is still unpaid is cancelled by a correction job, the paid components are kept
// and listed, like the undo of an upload.
//
// # Discounts and scholarships
//
// A Discount belongs to a student, for one plan or every plan, over a range of months
// (open at either end): a percentage (to a hundredth of a percent) or an amount of rupiah,
// with a reason (sibling, staff child, scholarship, hardship, or words of its own) and who
// granted it. Its arithmetic, in whole rupiah:
//   - a percentage is rounded to the nearest rupiah, half a rupiah up (in the parents'
//     favour): 10% of Rp 350.005 takes Rp 35.001 off; an amount takes itself off, at most
//     the price; what is charged is the price less that, never negative;
//   - discounts do not add up: where several apply to a period, the one taking the most
//     off is used (on a tie, the one for this plan);
//   - a periodic plan's discount applies to each period; a one-time fee's to the whole
//     fee before it is split into instalments (the parts still add up exactly);
//   - a charge of nothing (a 100% scholarship) makes no component: the job keeps the item
//     as skipped with why (Waived), and the kartu shows it waived.
//
// Discounts are applied when a plan is applied; granting, changing or removing one
// offers the correction of the student's unpaid components it covers (Reprice, Correct:
// old → new, a 100% scholarship cancelling). Students whose record carries a
// government-aid flag (KIP, KPS, PIP, from a Dapodik import) are offered as candidates
// (Candidates), never granted anything by the flag alone. Every grant, change and removal
// is audited with its size, the plan and why.
//
// # Changing a plan
//
// Update changes a plan's fields (its code stays); its components are not touched by it.
// Reprice reads what the plan, with the students' discounts as they are now, makes of
// each unpaid component it made: an update of the fields that differ (amount, penalty,
// days, name), or a cancel when its period is no longer the plan's or a scholarship now
// waives it. Correct sends them as correction jobs (internal/corrections' runner and
// steps: one update or cancel each, read back after a lost answer); paid components are
// never touched. A student's price follows their class as the roster has it now.
//
// # Months split into instalments later
//
// A plan's component split into instalments (internal/corrections) keeps the plan's key
// in its parts' notes, after which the split's own key follows: the parts are the
// period's, read together. The kartu shows them as one cell (what they ask, how many
// are paid), the discounts report as one line, an apply finds the period there; a
// plan's correction leaves the parts alone (counted apart), and so does an apply's undo
// (the split's undo decides them). A split undone makes the original again, with the
// plan's key: it is the plan's component, and the apply's to undo, as before.
//
// # Reading
//
// Kartu is a class × period grid of a plan (each cell paid with its day, unpaid, late,
// expired, waived, or not billed); Card one student's, printed on A4; Overview every
// class's paid and billed counts. DiscountLines are the charges the discounts lowered
// (the full price, what was taken off, what the component asks), for the discounts report
// (internal/reports).
package plans
