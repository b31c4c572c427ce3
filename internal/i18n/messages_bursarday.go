package i18n

// Issue 29's words: the counter's "perpanjang lalu terima", the dashboard's search, the
// bills' fee-name filter and the bulk correction's selection in words.
func init() {
	Register(map[string]Message{
		// The counter: an expired bill is extended, then paid, in one confirmed step.
		"payments.extend.link":            {ID: "Perpanjang lalu terima", EN: "Extend then take payment"},
		"payments.extend.title":           {ID: "Perpanjang lalu terima pembayaran", EN: "Extend then take the payment"},
		"payments.extend.intro":           {ID: "%[1]s sudah kedaluwarsa pada %[2]s, jadi layanan pembayaran belum mau menerimanya. Masa berlakunya diperpanjang dulu, lalu pembayarannya dicatat hari ini, %[3]s, dalam satu langkah.", EN: "%[1]s expired on %[2]s, so the payment service does not take it yet. Its expiry is extended first, then the payment is recorded today, %[3]s, in one step."},
		"payments.extend.until":           {ID: "Berlaku sampai (kedaluwarsa baru)", EN: "Valid until (new expiry)"},
		"payments.extend.until_hint":      {ID: "Hari ini atau sesudahnya. Jika pembayaran gagal, tagihan tetap dapat dibayar sampai tanggal ini.", EN: "Today or later. If the payment fails, the bill stays payable until this day."},
		"payments.extend.submit":          {ID: "Perpanjang dan catat pembayaran %[1]s", EN: "Extend and record payment of %[1]s"},
		"payments.extend.err.payable":     {ID: "%[1]s masih dapat dibayar tanpa diperpanjang: pilih di daftar tagihan.", EN: "%[1]s can be paid without an extension: choose it in the list."},
		"payments.extend.err.until_past":  {ID: "Pilih tanggal mulai hari ini (%[1]s).", EN: "Choose a day from today (%[1]s) on."},
		"payments.extend.failed":          {ID: "Masa berlaku tidak diperpanjang dan tidak ada yang dibayar. %[1]s", EN: "The expiry was not extended and nothing was paid. %[1]s"},
		"payments.extend.failed_unknown":  {ID: "Belum pasti apakah masa berlaku sudah diperpanjang; tidak ada yang dibayar. Periksa tagihan siswa sebelum mencoba lagi. %[1]s", EN: "It is not certain whether the expiry was extended; nothing was paid. Check the student's bills before trying again. %[1]s"},
		"payments.extend.extended_unpaid": {ID: "Masa berlaku %[1]s sudah diperpanjang sampai %[2]s, tetapi pembayaran TIDAK tercatat: %[3]s Tagihan itu kini dapat dibayar di daftar bawah.", EN: "The expiry of %[1]s was extended to %[2]s, but the payment was NOT recorded: %[3]s The item can now be paid in the list below."},
		"payments.extend.ok":              {ID: "%[1]s diperpanjang sampai %[2]s dan pembayaran %[3]s untuk %[4]s tercatat (no. referensi %[5]s).", EN: "%[1]s extended to %[2]s and the payment of %[3]s for %[4]s recorded (reference %[5]s)."},
		"payments.extend.audit_until":     {ID: "diperpanjang sampai %[1]s", EN: "extended to %[1]s"},
		"audit.act.payment.extend_pay":    {ID: "Tagihan kedaluwarsa diperpanjang lalu dibayar di loket", EN: "Expired bill extended then paid at the counter"},
		"audit.try.payment.extend_pay":    {ID: "Perpanjang lalu terima di loket", EN: "Extend then take payment at the counter"},
		"payments.reason.expired_extend":  {ID: "Kedaluwarsa: perpanjang dulu untuk menerima pembayaran", EN: "Expired: extend it first to take the payment"},

		// The bills list: an item's name as a filter, a search that found no student offered
		// as one, and a selection restated in words for a bulk correction.
		"bills.name_placeholder":           {ID: "mis. Iuran Pramuka", EN: "e.g. Scouts fee"},
		"bills.no_student_match":           {ID: "Tidak ada siswa yang cocok dengan “%[1]s”.", EN: "No student matches “%[1]s”."},
		"bills.search_as_name":             {ID: "Cari “%[1]s” sebagai nama tagihan", EN: "Search “%[1]s” as an item's name"},
		"bills.sel.name":                   {ID: "“%[1]s”", EN: "“%[1]s”"},
		"bills.sel.search":                 {ID: "siswa “%[1]s”", EN: "students “%[1]s”"},
		"bills.sel.nis":                    {ID: "NIS %[1]s", EN: "NIS %[1]s"},
		"bills.sel.notes":                  {ID: "catatan “%[1]s”", EN: "notes “%[1]s”"},
		"bills.sel.ref":                    {ID: "no. referensi %[1]s", EN: "reference %[1]s"},
		"bills.sel.due":                    {ID: "jatuh tempo %[1]s", EN: "due %[1]s"},
		"bills.sel.due_from":               {ID: "jatuh tempo sejak %[1]s", EN: "due from %[1]s"},
		"bills.sel.due_to":                 {ID: "jatuh tempo sampai %[1]s", EN: "due until %[1]s"},
		"bills.sel.paid":                   {ID: "dibayar %[1]s", EN: "paid %[1]s"},
		"bills.sel.paid_from":              {ID: "dibayar sejak %[1]s", EN: "paid from %[1]s"},
		"bills.sel.paid_to":                {ID: "dibayar sampai %[1]s", EN: "paid until %[1]s"},
		"corrections.bulk.link_sel":        {ID: "Koreksi massal: %[1]s", EN: "Correct at once: %[1]s"},
		"corrections.bulk.narrow_first":    {ID: "Koreksi massal: saring dulu daftarnya (kelas, nama tagihan, kode akun, jatuh tempo…).", EN: "Correcting at once: narrow the list first (class, item name, account code, due date…)."},
		"corrections.bulk.unfiltered":      {ID: "Koreksi massal hanya untuk daftar yang sudah disaring: pilih dulu kelas, nama tagihan, kode akun atau tanggal di daftar tagihan.", EN: "Correcting at once needs a narrowed list: choose a class, an item name, an account code or dates in the bills list first."},
		"corrections.bulk.selection_words": {ID: "Pilihan: %[1]s, nominal %[2]s.", EN: "Selection: %[1]s, face amount %[2]s."},

		// A date field shows the day as the portal read it.
		"form.date_understood": {ID: "Dibaca: %[1]s", EN: "Read as: %[1]s"},
	})
}
