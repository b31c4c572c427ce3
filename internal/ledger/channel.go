package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/sekolah/portal/internal/billing"
)

// Where each payment was made (issue 29, migration 00060): the channel a bursar reads
// receipts by, the provider's admin fee and references, and the cashier of a counter
// payment. The service's component records say none of it, so it is kept beside them,
// one row per payment (a student's reference), and joined to the components wherever a
// figure is read: every amount is still the service's.
//
// What writes a row, and when:
//   - a bank's (or shop's) payment: its callback's merchant_name, admin_fee and
//     merchant_ref_number, in the transaction that records the service's confirmation of
//     the payment (recordConfirmation), and only when the callback is confirmed: a
//     callback the service did not bear out says nothing the ledger keeps;
//   - a counter payment: the counter (internal/counter), with the cashier, before the
//     payment is sent (CounterSending), marked recorded once the service answered
//     (CounterRecorded) and dropped when it refused (CounterNotSent). A payment sent
//     without an answer keeps its row: if the service did record it, the sync brings its
//     components and the row already says who took the money;
//   - callbacks confirmed before the rows existed: backfilled once from their stored
//     bodies (BackfillChannels).
//
// A paid component without a row was found by the sync with no confirmed callback behind
// it: its channel is ChannelUnknown ("not known" on the pages).

// Channel is where a payment was made, as the portal groups the service's merchants.
type Channel string

// The channels, in the order the pages show them.
const (
	// ChannelCounter: the school's own counter, through the portal (a cashier took cash).
	ChannelCounter Channel = "counter"
	// ChannelBank: a bank (teller, ATM, virtual account, mobile or internet banking).
	ChannelBank Channel = "bank"
	// ChannelMinimarket: a convenience store's till (Alfamart, Indomaret, …).
	ChannelMinimarket Channel = "minimarket"
	// ChannelEWallet: an e-wallet or QRIS (GoPay, OVO, DANA, ShopeePay, LinkAja, …).
	ChannelEWallet Channel = "ewallet"
	// ChannelOther: a merchant the portal does not recognise (its name is kept as sent).
	ChannelOther Channel = "other"
	// ChannelUnknown: no confirmed callback and not the counter: the sync found the
	// payment, and the service's records do not say where it was made.
	ChannelUnknown Channel = "unknown"
)

// Channels are every channel in the pages' order.
func Channels() []Channel {
	return []Channel{ChannelCounter, ChannelBank, ChannelMinimarket, ChannelEWallet, ChannelOther, ChannelUnknown}
}

// channelOrder is c's place in Channels.
func channelOrder(c Channel) int {
	for i, k := range Channels() {
		if k == c {
			return i
		}
	}
	return len(Channels())
}

// channelWords are the words of a merchant's name that place it, checked in this order
// (a shop that names the bank behind it is still the shop). Whole words only: "DANA" is
// an e-wallet, "Danamon" a bank.
var channelWords = []struct {
	channel Channel
	words   []string
}{
	{ChannelMinimarket, []string{"alfamart", "alfamidi", "alfa express", "dan dan", "indomaret", "indomaret point", "lawson",
		"circle k", "circlek", "family mart", "familymart", "yomart", "superindo", "minimarket", "gerai retail"}},
	{ChannelEWallet, []string{"gopay", "go pay", "ovo", "dana", "shopeepay", "shopee pay", "linkaja", "link aja", "qris",
		"doku", "isaku", "sakuku", "jenius pay", "astrapay", "e wallet", "ewallet"}},
	{ChannelBank, []string{"bank", "bca", "bni", "bri", "briva", "bsi", "btn", "mandiri", "cimb", "niaga", "permata", "danamon",
		"maybank", "ocbc", "nisp", "panin", "mega", "bjb", "bpd", "muamalat", "sinarmas", "btpn", "jenius", "uob", "hsbc",
		"dbs", "citibank", "seabank", "jago", "atm", "va", "virtual account", "teller", "m banking", "mbanking",
		"mobile banking", "internet banking", "ibanking", "klikbca", "livin", "brimo", "kliring", "transfer"}},
}

// ChannelOf places a callback's merchant_name in a channel: bank, minimarket, e-wallet,
// or other for a name none of them recognises (an empty one included). The school's
// counter never comes from a callback: a merchant that calls itself a counter ("loket",
// "counter") is someone else's, and is other.
func ChannelOf(merchant string) Channel {
	words := strings.FieldsFunc(strings.ToLower(merchant), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	if len(words) == 0 {
		return ChannelOther
	}
	text := " " + strings.Join(words, " ") + " "
	for _, cw := range channelWords {
		for _, w := range cw.words {
			if strings.Contains(text, " "+w+" ") {
				return cw.channel
			}
		}
	}
	return ChannelOther
}

// The states of a payment's channel row.
const (
	channelSending  = "sending"  // a counter payment sent, its answer not there yet
	channelRecorded = "recorded" // the service confirmed (a callback) or answered (the counter)
)

// recordCallbackChannelTx keeps where a confirmed callback's payment was made (its
// merchant, admin fee and merchant reference), inside the confirmation's transaction;
// nis is the payment's student as the service has it. A payment that already has its row
// keeps it.
func recordCallbackChannelTx(ctx context.Context, tx *sql.Tx, cb billing.Callback, nis string, at time.Time) error {
	if nis == "" || cb.RefNumber == "" {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO ledger_payment_channels (nis, ref_number, channel, merchant, admin_fee, merchant_ref,
		state, recorded_us) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (nis, ref_number) DO NOTHING`,
		nis, cb.RefNumber, string(ChannelOf(cb.MerchantName)), clipText(cb.MerchantName, 200), max(cb.AdminFee, 0),
		clipText(cb.MerchantRefNumber, 200), channelRecorded, micros(at))
	if err != nil {
		return fmt.Errorf("ledger: the channel of payment %s: %w", cb.RefNumber, err)
	}
	return nil
}

// clipText keeps at most n bytes of s, cut at a character: what a callback's free text may
// take of a row.
func clipText(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}

// CounterSending records that cashier (a username, and their display name) is sending a
// counter payment of student nis under ref: called before the payment goes to the
// service, so a payment whose answer is lost is still known to be the counter's, and
// whose. A row of an earlier attempt under the same reference that never got an answer is
// taken over; a recorded payment's row is left alone.
func (l *Ledger) CounterSending(ctx context.Context, nis, ref, cashier, cashierName string) error {
	_, err := l.sql.ExecContext(ctx, `INSERT INTO ledger_payment_channels (nis, ref_number, channel, cashier, cashier_name, state, recorded_us)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (nis, ref_number) DO UPDATE SET channel = excluded.channel, cashier = excluded.cashier,
			cashier_name = excluded.cashier_name, recorded_us = excluded.recorded_us
		WHERE ledger_payment_channels.state = $6`,
		nis, ref, string(ChannelCounter), cashier, cashierName, channelSending, micros(l.now()))
	if err != nil {
		return fmt.Errorf("ledger: counter payment %s of %s: %w", ref, nis, err)
	}
	return nil
}

// CounterRecorded marks the counter payment of nis under ref as answered by the service.
func (l *Ledger) CounterRecorded(ctx context.Context, nis, ref string) error {
	err := l.writeTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE ledger_payment_channels SET state = $1 WHERE nis = $2 AND ref_number = $3 AND channel = $4`,
			channelRecorded, nis, ref, string(ChannelCounter)); err != nil {
			return err
		}
		return bumpChanges(ctx, tx) // the closing's payments waiting for an answer moved
	})
	if err != nil {
		return fmt.Errorf("ledger: counter payment %s of %s recorded: %w", ref, nis, err)
	}
	return nil
}

// CounterNotSent drops the row of a counter payment the service refused (nothing was
// paid); a recorded payment's row is left alone.
func (l *Ledger) CounterNotSent(ctx context.Context, nis, ref string) error {
	_, err := l.sql.ExecContext(ctx, `DELETE FROM ledger_payment_channels WHERE nis = $1 AND ref_number = $2 AND state = $3`,
		nis, ref, channelSending)
	if err != nil {
		return fmt.Errorf("ledger: counter payment %s of %s not sent: %w", ref, nis, err)
	}
	return nil
}

// backfillBatch is how many confirmed callbacks one pass of BackfillChannels reads.
const backfillBatch = 500

// BackfillChannels gives the payments of callbacks confirmed before payments kept their
// channel (migration 00060) the channel their stored first body says, as a confirmation
// now would; a body that no longer verifies (the issued password changed since) gives
// only the merchant's name stored beside it. It returns how many it gave one. The syncer
// runs it once after its first run.
func (l *Ledger) BackfillChannels(ctx context.Context) (int, error) {
	done := 0
	for {
		rows, err := l.sql.QueryContext(ctx, `SELECT c.ref_number, c.service_bill_key, c.signature, c.body, c.merchant, c.confirmed_at
			FROM ledger_callbacks c WHERE c.status = $1 AND c.service_bill_key <> '' AND NOT EXISTS (SELECT 1 FROM ledger_payment_channels m
				WHERE m.nis = c.service_bill_key AND m.ref_number = c.ref_number)
			ORDER BY c.ref_number LIMIT $2`, string(CallbackConfirmed), backfillBatch)
		if err != nil {
			return done, fmt.Errorf("ledger: backfill channels: %w", err)
		}
		type found struct {
			cb  billing.Callback
			nis string
			at  time.Time
		}
		var batch []found
		for rows.Next() {
			var ref, nis, sig, body, merchant string
			var at nullTime
			if err := rows.Scan(&ref, &nis, &sig, &body, &merchant, &at); err != nil {
				rows.Close()
				return done, fmt.Errorf("ledger: backfill channels: %w", err)
			}
			cb := billing.Callback{RefNumber: ref, MerchantName: merchant}
			if l.verify != nil {
				if v, err := l.verify(sig, []byte(body)); err == nil && v.RefNumber == ref {
					cb = v
				}
			}
			batch = append(batch, found{cb: cb, nis: nis, at: at.t})
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return done, fmt.Errorf("ledger: backfill channels: %w", err)
		}
		if len(batch) == 0 {
			return done, nil
		}
		err = l.writeTx(ctx, func(tx *sql.Tx) error {
			for _, f := range batch {
				at := f.at
				if at.IsZero() {
					at = l.now()
				}
				if err := recordCallbackChannelTx(ctx, tx, f.cb, f.nis, at); err != nil {
					return err
				}
			}
			return bumpChanges(ctx, tx)
		})
		if err != nil {
			return done, fmt.Errorf("ledger: backfill channels: %w", err)
		}
		done += len(batch)
		if len(batch) < backfillBatch {
			return done, nil
		}
	}
}

// ChannelDay is what one channel took on one day: payments (a reference's components are
// one payment; a component paid without one counts on its own), components, what they
// paid (amount_paid, the service's) and the admin fees their callbacks stated (paid by
// the parents to the provider on top; never part of what the school received).
type ChannelDay struct {
	Day        time.Time
	Channel    Channel
	Payments   int
	Components int
	Paid       int64
	AdminFee   int64
}

// PaymentChannels is what each channel took on each day from from to to (days in the
// ledger's zone, inclusive), optionally of one account code: one row per day and channel
// with payments, days in order, channels in Channels' order. The amounts are the paid
// components' (those of the payments report); the channel is the payment's row, or
// ChannelUnknown.
func (l *Ledger) PaymentChannels(ctx context.Context, from, to time.Time, account string) ([]ChannelDay, error) {
	if err := checkRange(from, to); err != nil {
		return nil, err
	}
	var w where
	w.add("c.kind = 1")
	w.add("c.paid_day >= ?", dayNum(from))
	w.add("c.paid_day <= ?", dayNum(to))
	if account != "" {
		w.add("c.account_code = ?", account)
	}
	rows, err := l.sql.QueryContext(ctx, `SELECT p.day, p.channel, COUNT(*), SUM(p.n), SUM(p.paid), SUM(p.fee) FROM (
			SELECT c.paid_day AS day, COALESCE(MAX(m.channel), '') AS channel, COUNT(*) AS n, SUM(c.amount_paid) AS paid,
				COALESCE(MAX(m.admin_fee), 0) AS fee
			FROM ledger_components c`+l.indexedBy("ledger_components_payments")+`
			LEFT JOIN ledger_payment_channels m ON m.nis = c.nis AND m.ref_number = c.ref_number`+w.sql()+`
			GROUP BY c.paid_day, c.nis, CASE WHEN c.ref_number <> '' THEN c.ref_number ELSE c.id END) p
		GROUP BY p.day, p.channel ORDER BY p.day`, w.args...)
	if err != nil {
		return nil, fmt.Errorf("ledger: payments by channel: %w", err)
	}
	defer rows.Close()
	var out []ChannelDay
	for rows.Next() {
		var day, payments, n int64
		var ch string
		var d ChannelDay
		if err := rows.Scan(&day, &ch, &payments, &n, &d.Paid, &d.AdminFee); err != nil {
			return nil, fmt.Errorf("ledger: payments by channel: %w", err)
		}
		d.Day, d.Channel, d.Payments, d.Components = dayTime(day), channelOfRow(ch), int(payments), int(n)
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("ledger: payments by channel: %w", err)
	}
	sortChannelDays(out)
	return out, nil
}

// channelOfRow is a stored channel ("" when the payment has no row: not known).
func channelOfRow(s string) Channel {
	if s == "" {
		return ChannelUnknown
	}
	return Channel(s)
}

func sortChannelDays(ds []ChannelDay) {
	// Insertion sort: a range's days come in order, and each day has a handful of channels.
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0 && lessChannelDay(ds[j], ds[j-1]); j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
		}
	}
}

func lessChannelDay(a, b ChannelDay) bool {
	if !a.Day.Equal(b.Day) {
		return a.Day.Before(b.Day)
	}
	return channelOrder(a.Channel) < channelOrder(b.Channel)
}

// CounterReceipt is one payment taken at the school's counter, as the ledger holds it:
// the service's components paid under the reference, and who took it.
type CounterReceipt struct {
	Cashier     string // username
	CashierName string // their display name when they took it
	NIS         string
	Name        string // the roster's name, else the service's
	Class       string
	Ref         string
	PaidAt      time.Time
	Components  int
	Amount      int64 // amount_paid, penalties included
}

// CounterReceipts are the counter payments paid on day (a day in the ledger's zone), of
// every cashier, in the order they were paid.
func (l *Ledger) CounterReceipts(ctx context.Context, day time.Time) ([]CounterReceipt, error) {
	rows, err := l.sql.QueryContext(ctx, `SELECT m.cashier, MAX(m.cashier_name), c.nis, MAX(c.student_name), c.ref_number,
			MAX(c.paid_us), COUNT(*), SUM(c.amount_paid), COALESCE(MAX(s.name), ''), COALESCE(MAX(s.description), '')
		FROM ledger_components c`+l.indexedBy("ledger_components_payments")+`
		JOIN ledger_payment_channels m ON m.nis = c.nis AND m.ref_number = c.ref_number
		LEFT JOIN students s ON s.nis = c.nis
		WHERE c.kind = 1 AND c.paid_day = $1 AND c.ref_number <> '' AND m.channel = $2
		GROUP BY m.cashier, c.nis, c.ref_number ORDER BY 6, 3, 5`, dayNum(day), string(ChannelCounter))
	if err != nil {
		return nil, fmt.Errorf("ledger: counter receipts: %w", err)
	}
	defer rows.Close()
	var out []CounterReceipt
	for rows.Next() {
		var r CounterReceipt
		var paid, n int64
		var serviceName, rosterName string
		if err := rows.Scan(&r.Cashier, &r.CashierName, &r.NIS, &serviceName, &r.Ref, &paid, &n, &r.Amount, &rosterName, &r.Class); err != nil {
			return nil, fmt.Errorf("ledger: counter receipts: %w", err)
		}
		r.PaidAt, r.Components, r.Name = instant(paid), int(n), serviceName
		if rosterName != "" {
			r.Name = rosterName
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("ledger: counter receipts: %w", err)
	}
	return out, nil
}

// CounterAttempt is a counter payment taken on a day that the ledger does not hold as
// paid: sent without an answer (Answered false: the service may or may not have recorded
// it), or answered and not in the ledger yet (the sync brings it within a minute).
type CounterAttempt struct {
	Cashier, CashierName string
	NIS, Name, Ref       string
	At                   time.Time
	Answered             bool
}

// CounterAttempts are the counter payments taken on day (in the ledger's zone) that the
// ledger does not hold as paid, oldest first.
func (l *Ledger) CounterAttempts(ctx context.Context, day time.Time) ([]CounterAttempt, error) {
	start := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, l.loc)
	end := start.AddDate(0, 0, 1)
	rows, err := l.sql.QueryContext(ctx, `SELECT m.cashier, m.cashier_name, m.nis, COALESCE(s.name, ''), m.ref_number, m.recorded_us, m.state
		FROM ledger_payment_channels m LEFT JOIN students s ON s.nis = m.nis
		WHERE m.channel = $1 AND m.recorded_us >= $2 AND m.recorded_us < $3 AND NOT EXISTS (SELECT 1 FROM ledger_components c
			WHERE c.ref_number = m.ref_number AND c.nis = m.nis AND c.kind = 1)
		ORDER BY m.recorded_us, m.nis`, string(ChannelCounter), micros(start), micros(end))
	if err != nil {
		return nil, fmt.Errorf("ledger: counter payments without an answer: %w", err)
	}
	defer rows.Close()
	var out []CounterAttempt
	for rows.Next() {
		var a CounterAttempt
		var at int64
		var state string
		if err := rows.Scan(&a.Cashier, &a.CashierName, &a.NIS, &a.Name, &a.Ref, &at, &state); err != nil {
			return nil, fmt.Errorf("ledger: counter payments without an answer: %w", err)
		}
		a.At, a.Answered = instant(at), state == channelRecorded
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("ledger: counter payments without an answer: %w", err)
	}
	return out, nil
}
