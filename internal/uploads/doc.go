// Package uploads reads the spreadsheets schools upload (bill components, students),
// checks every cell against the billing service's rules, and runs the background job that
// sends the valid new rows in chunks without ever creating a bill twice or losing one.
//
// Reading. Every file is read through internal/sheets, whatever its format: .xlsx, .xls
// (Excel 97–2003, what Dapodik and many schools still give), .ods (LibreOffice) and CSV
// (';' or ',', UTF-8 with or without a byte order mark, or Windows-1252), found from its
// content. It holds every bound of reading a hostile file in one place (the XML depth and
// tags through internal/xmlscan, Excel's 32,767 characters a cell, shared strings, rows,
// columns, cells, merged ranges, .xls records, CSV records, the unzipped size), each
// refusal worded here as a file problem naming why ("Sel B7", the part nested too deep).
// The sheet read is the one the file opens on, never a hidden one; when its headings are
// not there, the first other visible sheet that has them, and the preview says so
// (Reading: the sheet, the heading rows, the columns not read). The headings are looked
// for in the first 20 non-empty rows (title rows above them, as Dapodik's export has), a
// second heading row below them is recognised (its columns named under their group), and
// columns are found by their heading with Indonesian and English aliases (NIPD is the NIS,
// "Rombel Saat Ini" the class; a mobile and a landline column are the phone and its
// stand-in). A cell is read by its kind: a NIS as the spreadsheet shows it (12360 in
// format 0000000 is 0012360), an amount as its number, a date cell as its day, a text as
// people type them; a formula's error (#N/A) is named as such. A vertical merged range in
// a column read is filled down and said once; a total row ("Jumlah") is skipped and said.
// Only a few numbers per row are kept (row, interned NIS and name, due day, amount), so a
// 100,000-row sheet is checked in tens of megabytes. Problems are streamed to the database
// as they are found, as codes with arguments, and become messages in the reader's language
// when shown: the first MaxIssuesKept of them, all counted per kind; the bad rows are kept
// as a bitmap for the commit to skip. Each hostile upload, and all of them analysed while
// five error workbooks are made, keep the heap under 300 MB (BenchmarkHostileUploads); the
// error workbook echoes at most 1,000 characters of a cell, and a message quotes at most 80.
//
// Warnings. What every rule takes but may not be what was meant is a warning
// (plausible.go): an amount under Rp 1.000 or far below the others of its bill name (350
// for 350.000, typed on a computer set to English), date cells read month-first where the
// sheet's typed dates are day-first (or the reverse), a due day outside the school year
// around today, a total row skipped, a merged range filled down, a NIS read with its lost
// leading zeros put back (12345 is the roster's 0012345: never a new student), a new
// student whose name an existing student has. Warnings do not stop their row; each kind
// (and any formula error) must be acknowledged by the person committing (AckCodes,
// Commit), which is audited and kept with the job. The error workbook marks warnings
// yellow and problems red, each message naming the cell where it is now and where it was.
//
// Dapodik. Its students export ("Daftar PD": title rows, two heading rows, some 60
// columns) is a students sheet as it is downloaded; its aid flags (Penerima KIP, Penerima
// KPS, Layak PIP) are kept with the students (aid.go: store.SetStudentAid at the commit
// for those the roster has, by the job for those it creates), for the fee plans' discounts.
//
// Keeping the file. The preview pages through the problems, the error workbook and the
// commit need the original rows again, so the sheet is kept in the database with its job
// (store.UploadSheet, in parts of 1 MiB written and read one at a time), not on one
// instance's disk: instances share nothing but the database, and a job taken over by
// another instance, or a Retry, works anywhere. To read it, internal/sheets gets a
// temporary copy (it reads a file in place, a part or a record at a time); the copy is
// removed as soon as the reading ends. Sheets are forgotten when an upload is discarded,
// and by a janitor after Config.Retention (14 days) once the job has finished or was never
// committed; the history line stays. Sheets earlier versions kept in <data>/uploads are
// moved into the database at start.
//
// Checking at the wire's cost. NIS numbers are looked up in the roster; those it lacks are
// found in the service's student list (a few are asked one by one instead), never one GET
// per NIS; rows already uploaded are looked for in the ledger during the analysis, and at
// the service by the commit. The analysis keeps the valid rows as the commit sends them
// (store.UploadRows), so a commit reads no sheet: 20,000 rows at 50 ms a call are analysed
// in about a second and sent within 1.3 times the wire's own time (BenchmarkUploadWire).
//
// Changing what exists. A components sheet's optional "ID Tagihan" column makes its row a
// correction of that component, and a students sheet's row whose NIS exists an update of
// that student ("naik kelas"): the analysis compares the row with the ledger's component or
// the roster's student, lists each changed cell old → new (Runner.Changes) and counts the
// rows that change nothing; the job sends each change as its own call, with only what
// changed, through the correction steps of internal/corrections (corrections.Steps: the
// same that bulk corrections and the undo of an upload use), which also read the record
// back after a lost answer or a refusal: a change already there is done, a component paid
// or cancelled since the preview is not changed and its row says why (corrections.go).
//
// Sending. The job runs on internal/jobs, which owns the lifecycle (the worker, the job
// loop, the lease each job runs under, so instances sharing the database never send the
// same job's rows at once, and take over a job whose instance died) and the exactly-once
// machinery; this package adds the upload's steps (job_chunks.go). A committed job first
// asks the service once more which rows exist by now, then writes the rest as chunks
// (default 200 rows) in the database in one transaction, each with its state: pending,
// sent (marked before the call leaves), confirmed, failed, unknown. A call that got no
// answer (timeout, lost connection, the portal stopping, a gateway's 502 or 504) leaves
// its chunk unknown; before anything is sent again the job waits until the call can no
// longer land, searches the service for the chunk's rows (student, name and due day) and
// sends only those missing. A chunk found marked sent at start-up (the process died during
// the call) is treated the same way. Rows the service refuses are recorded with its reason
// and the rest of their batch is sent again (batches are all or nothing). Jobs run one at a
// time in commit order, a few chunks in flight each, and resume when the portal restarts.
//
// Waiting. A service that does not answer at all (5xx, no answer, no connection) after a
// few quick tries makes the job wait rather than give up: it tries again by itself, the
// pause growing to Config.WaitMax (5 minutes), for Config.WaitFor (12 hours), and goes on
// as soon as the service answers; since when it waits is kept with the job (its page says
// so, and an instance taking the job over goes on counting), and Retry ends the pause at
// once. Only after WaitFor are its unsent rows left for a person's Retry. A service that
// refuses the portal's credentials leaves them for a Retry at once, saying so.
//
// Rules and audit. An upload's state is a State with its rules (running, finished, busy,
// discardable, committable; CanRetry, CanAnalyseAgain, Hurried): the pages ask, they do not
// decide. Each step a person takes (Receive, Analyse, Commit, Retry, Discard) is audited
// by the runner as theirs once it is made (audit.go).
package uploads
