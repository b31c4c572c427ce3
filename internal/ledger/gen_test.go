package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/store"
)

// A generated school for the benchmarks: six school years of history up to genToday,
// monthly SPP and a few other charges per student per year, most of the past paid (some
// late, with the penalty), some left to expire, the coming months mostly unpaid.
var genToday = time.Date(2027, time.March, 15, 0, 0, 0, 0, time.UTC)

// genStudentsFor is how many students make n components (84 a student).
func genStudentsFor(n int) int { return (n + 83) / 84 }

var genAccounts = []string{"SPP", "BCA", "MANDIRI"}

// generate stores exactly n components of a generated school (and its roster) straight
// into the ledger's tables, in one transaction, then builds the totals.
func generate(ctx context.Context, db *store.DB, n int, loc *time.Location) error {
	rng := rand.New(rand.NewPCG(11, 27))
	students := genStudentsFor(n)
	first := []string{"Ahmad", "Siti", "Budi", "Dewi", "Rizky", "Putri", "Agus", "Nur", "Fajar", "Indah", "Yusuf", "Ayu"}
	last := []string{"Santoso", "Lestari", "Hidayat", "Nugroho", "Wibowo", "Saputra", "Handayani", "Kurniawan", "Pratama"}
	paidDay := func(us int64) int64 { return dayNum(time.UnixMicro(us).In(loc)) }
	return db.InTx(ctx, func(tx *sql.Tx) error {
		if db.Dialect() == store.DialectSQLite {
			// A bigger page cache for this connection: the load writes ~400 MB.
			if _, err := tx.ExecContext(ctx, `PRAGMA cache_size = -262144`); err != nil {
				return err
			}
		}
		// Indexes are built once at the end, far faster than row by row.
		restore, err := dropIndexes(ctx, tx, db.Dialect())
		if err != nil {
			return err
		}
		roster := make([]store.Student, students)
		for i := range roster {
			roster[i] = store.Student{NIS: fmt.Sprintf("%d", 20210000+i), Name: first[rng.IntN(len(first))] + " " + last[rng.IntN(len(last))],
				Description: fmt.Sprintf("Kelas %d%c", 7+i%6, 'A'+rune(i/6%6)), Source: store.SourceSync}
		}
		if err := db.UpsertStudentsTx(ctx, tx, roster); err != nil {
			return err
		}
		// The SQLite driver binds $n parameters in time quadratic in their count: short
		// statements there; PostgreSQL takes long ones (round trips are its cost).
		perStmt := 4
		if db.Dialect() == store.DialectPostgres {
			perStmt = 200
		}
		cols := componentColumns + ", nis_key, written_us"
		ncols := len(strings.Split(cols, ","))
		var vals []string
		for r := range perStmt {
			vals = append(vals, "("+placeholders(r*ncols+1, ncols)+")")
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO ledger_components (`+cols+`) VALUES `+strings.Join(vals, ", "))
		if err != nil {
			return err
		}
		defer stmt.Close()
		var batch []any
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			_, err := stmt.ExecContext(ctx, batch...)
			batch = batch[:0]
			return err
		}
		// Components are uploaded a school year at a time, all students together, in late June.
		made := 0
		written := micros(genToday)
		for year := 2021; made < n; year++ {
			upload := time.Date(year, time.June, 25, 2, 0, 0, 0, time.UTC)
			for k := 0; k < 14 && made < n; k++ {
				for si := 0; si < students && made < n; si++ {
					st := roster[si]
					var name, account string
					var amount, penalty int64
					var due, expiry time.Time
					switch {
					case k < 12:
						due = time.Date(year, time.July+time.Month(k), 10, 0, 0, 0, 0, time.UTC)
						name, account = "SPP "+due.Format("January 2006"), genAccounts[0]
						amount, penalty = 450_000+int64(si%4)*50_000, 25_000
						expiry = due.AddDate(0, 2, 0)
					case k == 12:
						due = time.Date(year, time.August, 15, 0, 0, 0, 0, time.UTC)
						name, account, amount, penalty = fmt.Sprintf("Uang Buku %d/%d", year, year+1), genAccounts[1], 1_200_000, 10_000
						expiry = due.AddDate(1, 0, 0) // payable all year: fills the older age buckets
					default:
						due = time.Date(year+1, time.February, 1, 0, 0, 0, 0, time.UTC)
						name, account, amount, penalty = fmt.Sprintf("Kegiatan %d/%d", year, year+1), genAccounts[2], 800_000, 50_000
						expiry = due.AddDate(0, 1, 0)
					}
					created := upload.Add(time.Duration(made%students) * 10 * time.Millisecond).Add(time.Duration(k) * time.Minute)
					r := row{
						ID: fmt.Sprintf("%08x-%04x-7000-8000-%012x", year, k, si), BillID: fmt.Sprintf("bill-%08d", si),
						NIS: st.NIS, StudentName: st.Name, Account: account, Name: name, Amount: amount, Penalty: penalty,
						DueUS: micros(due), ExpiryUS: micros(expiry), Kind: kindOpen, State: "provisioned", RawState: "provisioned",
						CreatedUS: micros(created), UpdatedUS: micros(created),
					}
					r.DueDay, r.ExpiryDay = dayNum(due), dayNum(expiry)
					if si%5 == 0 { // some notes, for the notes filter (contains, any case)
						r.Notes = []string{"Titipan Orang Tua", "cicilan ke-2", "Beasiswa 100% (Cicilan)"}[(si/5+k)%3]
					}
					chronic := si%11 == 0
					switch p := rng.Float64(); {
					case rng.IntN(200) == 0:
						r.Kind, r.State, r.RawState = kindDeleted, "deleted", "deleted"
					case due.Before(genToday) && p < 0.9 && !(chronic && p > 0.4):
						late := rng.IntN(10) == 0
						at := due.Add(-time.Duration(rng.IntN(20*24)) * time.Hour)
						if late {
							at = due.Add(time.Duration(24+rng.IntN(30*24)) * time.Hour)
						}
						at = at.Add(time.Duration(rng.IntN(10*3600)) * time.Second)
						if rng.IntN(3) == 0 {
							at = at.Truncate(time.Hour) // a bank's batch: many payments at one instant
						}
						if at.After(genToday) {
							at = genToday.Add(-time.Hour)
						}
						r.Kind, r.State, r.RawState = kindPaid, "paid", "paid"
						r.AmountPaid, r.PaidUS, r.Ref = amount, micros(at), fmt.Sprintf("REF%d%06d%02d", year, si, k)
						if dayNum(at.In(loc)) > r.DueDay {
							r.AmountPaid += penalty
						}
						r.PaidDay = paidDay(r.PaidUS)
						r.UpdatedUS = r.PaidUS
					case !due.Before(genToday) && p < 0.05:
						at := genToday.Add(-time.Duration(rng.IntN(40*24)) * time.Hour)
						r.Kind, r.State, r.RawState = kindPaid, "paid", "paid"
						r.AmountPaid, r.PaidUS, r.Ref = amount, micros(at), fmt.Sprintf("EARLY%d%06d%02d", year, si, k)
						r.PaidDay = paidDay(r.PaidUS)
						r.UpdatedUS = r.PaidUS
					case genToday.After(expiry):
						r.State, r.RawState = "expired", "expired"
					}
					batch = append(batch, r.args(written)...)
					made++
					if len(batch) == perStmt*ncols {
						if err := flush(); err != nil {
							return err
						}
					}
				}
			}
		}
		// The tail that does not fill a whole statement.
		if rest := len(batch) / ncols; rest > 0 {
			one, err := tx.PrepareContext(ctx, `INSERT INTO ledger_components (`+cols+`) VALUES (`+placeholders(1, ncols)+`)`)
			if err != nil {
				return err
			}
			defer one.Close()
			for i := range rest {
				if _, err := one.ExecContext(ctx, batch[i*ncols:(i+1)*ncols]...); err != nil {
					return err
				}
			}
		}
		for _, q := range restore {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		if err := rebuildTotals(ctx, tx); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE ledger_state SET fill_state = 'filled', change_seq = change_seq + 1 WHERE name = 'ledger'`)
		return err
	})
}

// dropIndexes drops the secondary indexes of ledger_components and returns the
// statements that create them again.
func dropIndexes(ctx context.Context, tx *sql.Tx, dialect string) ([]string, error) {
	q := `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ledger_components' AND sql IS NOT NULL`
	if dialect == store.DialectPostgres {
		q = `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'ledger_components' AND schemaname = current_schema()
			AND indexname <> 'ledger_components_pkey'`
	}
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	var names, defs []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			rows.Close()
			return nil, err
		}
		names, defs = append(names, name), append(defs, def)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, n := range names {
		if _, err := tx.ExecContext(ctx, `DROP INDEX `+n); err != nil {
			return nil, err
		}
	}
	return defs, nil
}
