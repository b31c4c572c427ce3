package i18n

// Issue 13's words: the dashboard's lead figures and what each counts, the durations and
// actors shown to finance staff.
func init() {
	Register(map[string]Message{
		"words.dashboard.arrears_sub":      {ID: "%[1]d siswa · terlambat %[2]s · kedaluwarsa %[3]s", EN: "%[1]d {1:student|students} · overdue %[2]s · expired %[3]s"},
		"words.dashboard.arrears_hint":     {ID: "Semua tagihan lewat jatuh tempo yang belum dibayar: yang terlambat dengan dendanya hari ini, dan yang kedaluwarsa sebesar nominalnya.", EN: "Every unpaid bill past its due date: the overdue ones with today's late fees, and the expired ones at their amount."},
		"words.dashboard.expired_students": {ID: "%[1]d siswa · %[2]d tagihan", EN: "%[1]d {1:student|students} · %[2]d {2:item|items}"},
		"words.dashboard.expired_hint":     {ID: "Belum dibayar dan lewat masa berlakunya: tetap terutang. Di Loket, perpanjang lalu terima pembayarannya.", EN: "Unpaid and past their expiry: still owed. At the counter, extend then take the payment."},
		"words.dashboard.overdue_students": {ID: "%[1]d siswa · %[2]d tagihan", EN: "%[1]d {1:student|students} · %[2]d {2:item|items}"},
		"words.dashboard.penalty_incl":     {ID: "termasuk denda %[1]s", EN: "incl. late fees %[1]s"},
		"words.dashboard.overdue_hint":     {ID: "Belum dibayar, lewat jatuh tempo dan belum kedaluwarsa; dengan dendanya hari ini.", EN: "Unpaid, past the due date and not yet expired; with today's late fees."},
		"words.dashboard.rate_hint":        {ID: "Dari nominal tagihan yang jatuh tempo %[1]s–%[2]s (dibayar atau belum, termasuk yang kedaluwarsa), bagian yang sudah lunas.", EN: "Of the amount of the bills falling due %[1]s–%[2]s (paid or not, expired included), the share that is paid."},
		"words.dashboard.receipts_month":   {ID: "Diterima bulan ini", EN: "Collected this month"},
		"words.dashboard.receipts_hint":    {ID: "Satu kuitansi atau satu pembayaran di bank dihitung satu pembayaran, berapa pun tagihannya.", EN: "One receipt or one bank payment counts as one payment, however many items it pays."},
		"words.dashboard.payments_items":   {ID: "%[1]d pembayaran · %[2]d tagihan", EN: "%[1]d {1:payment|payments} · %[2]d {2:item|items}"},
		"words.items_paid":                 {ID: "%[1]d tagihan dibayar", EN: "%[1]d {1:item|items} paid"},

		// A duration shorter than its smallest unit: never "0 detik".
		"words.duration.under_second": {ID: "kurang dari 1 detik", EN: "under a second"},
	})
}
