package i18n

// Students who leave: a student's status set from their page, the offer to cancel a
// leaver's bills due after they left, the students list's status filter and the alumni
// arrears report.
func init() {
	Register(map[string]Message{
		// The status (internal/students' Standing).
		"students.standing":             {ID: "Status", EN: "Status"},
		"students.standing.title":       {ID: "Ubah status siswa", EN: "Change the student's status"},
		"students.standing.lead":        {ID: "Siswa yang lulus, pindah atau keluar tetap menanggung tunggakannya (tagihan yang jatuh tempo sebelum tanggal itu), tidak lagi ditagih oleh rencana biaya kelas, dan dapat diaktifkan kembali kapan saja.", EN: "A student who graduated, moved or left still owes their arrears (what fell due before that day), is no longer billed by a class's fee plan, and can be made active again at any time."},
		"students.standing.on":          {ID: "Sejak tanggal", EN: "Since"},
		"students.standing.on_hint":     {ID: "Wajib untuk lulus, pindah atau keluar; tulis misalnya 14/07/2026 (hari/bulan/tahun) atau 2026-07-14.", EN: "Required for graduated, moved or left; write e.g. 14/07/2026 (day/month/year) or 2026-07-14."},
		"students.standing.on_read":     {ID: "Dibaca sebagai %[1]s.", EN: "Read as %[1]s."},
		"students.standing.note":        {ID: "Alasan", EN: "Reason"},
		"students.standing.note_hint":   {ID: "Wajib untuk lulus, pindah atau keluar (misalnya “pindah ke SMP Negeri 3 Bandung”); disimpan di log audit.", EN: "Required for graduated, moved or left (e.g. “moved to SMP Negeri 3 Bandung”); kept in the audit log."},
		"students.standing.err.status":  {ID: "Pilih salah satu status: aktif, lulus, pindah atau keluar.", EN: "Choose a status: active, graduated, moved or left."},
		"students.standing.since":       {ID: "%[1]s sejak %[2]s", EN: "%[1]s since %[2]s"},
		"students.standing.change":      {ID: "%[1]s → %[2]s", EN: "%[1]s → %[2]s"},
		"students.standing.change_link": {ID: "ubah status", EN: "change the status"},
		"students.standing.saved":       {ID: "Status %[1]s disimpan: %[2]s.", EN: "The status of %[1]s was saved: %[2]s."},
		// The students list's filter.
		"students.filter.active": {ID: "Aktif", EN: "Active"},
		"students.filter.all":    {ID: "Semua status", EN: "Every status"},
		"students.filter.former": {ID: "Mantan siswa (lulus, pindah, keluar)", EN: "Former (graduated, moved, left)"},
		// Leaving: the bills due after that day.
		"leavers.title":                {ID: "Tagihan setelah siswa keluar", EN: "Bills after the student left"},
		"leavers.arrears_kept":         {ID: "Tagihan yang jatuh tempo sebelum tanggal itu tetap ditagih dan dapat dibayar di loket.", EN: "Bills that fell due before that day are still owed and can be paid at the counter."},
		"leavers.offer":                {ID: "%[1]d tagihan (%[2]s) jatuh tempo setelah tanggal itu dan belum dibatalkan.", EN: "%[1]d {1:bill|bills} (%[2]s) fall due after that day and are not cancelled."},
		"leavers.offer_link":           {ID: "Tinjau pembatalan", EN: "Review the cancellation"},
		"leavers.body":                 {ID: "%[1]d tagihan belum dibayar sebesar %[2]s jatuh tempo setelah %[3]s. Yang dicentang akan dibatalkan di layanan pembayaran.", EN: "%[1]d unpaid {1:bill|bills} of %[2]s fall due after %[3]s. Those ticked will be cancelled at the payment service."},
		"leavers.none":                 {ID: "Tidak ada tagihan belum dibayar yang jatuh tempo setelah %[1]s.", EN: "No unpaid bill falls due after %[1]s."},
		"leavers.kept_title":           {ID: "Tetap ditagih (jatuh tempo sebelumnya): %[1]s", EN: "Still owed (due before): %[1]s"},
		"leavers.kept_none":            {ID: "Tidak ada tunggakan.", EN: "No arrears."},
		"leavers.confirm":              {ID: "Batalkan tagihan yang dicentang", EN: "Cancel the ticked bills"},
		"leavers.not_now":              {ID: "Jangan sekarang", EN: "Not now"},
		"leavers.reason_default":       {ID: "Siswa %[1]s sejak %[2]s", EN: "Student %[1]s since %[2]s"},
		"leavers.err.none_chosen":      {ID: "Centang minimal satu tagihan, atau pilih “Jangan sekarang”.", EN: "Tick at least one bill, or choose “Not now”."},
		"leavers.no_day":               {ID: "Tanggal siswa ini keluar belum dicatat: isi tanggalnya dahulu.", EN: "The day this student left is not recorded: fill it in first."},
		"leavers.not_former":           {ID: "Siswa ini masih aktif: ubah statusnya dahulu.", EN: "This student is still active: change their status first."},
		"leavers.started":              {ID: "%[1]d tagihan (%[2]s) milik %[3]s sedang dibatalkan.", EN: "%[1]d {1:bill|bills} (%[2]s) of %[3]s are being cancelled."},
		"leavers.job.title":            {ID: "Tagihan setelah siswa keluar dibatalkan", EN: "Bills after a student left cancelled"},
		"leavers.job.summary":          {ID: "%[1]d tagihan sebesar %[2]s dibatalkan, alasan: %[3]s. Tunggakan sebelumnya tetap ditagih.", EN: "%[1]d {1:bill|bills} of %[2]s cancelled, reason: %[3]s. The arrears before stay owed."},
		"leavers.counter":              {ID: "%[1]s: tunggakannya tetap dapat dibayar.", EN: "%[1]s: their arrears can still be paid."},
		"corrections.job.back_student": {ID: "Kembali ke halaman siswa", EN: "Back to the student's page"},
		// The alumni arrears report.
		"reports.tab.alumni":         {ID: "Tunggakan alumni", EN: "Alumni arrears"},
		"reports.alumni.title":       {ID: "Tunggakan alumni", EN: "Alumni arrears"},
		"reports.alumni.intro":       {ID: "Siswa yang sudah lulus, pindah atau keluar dan masih mempunyai tagihan yang belum dibayar.", EN: "Students who graduated, moved or left and still have unpaid bills."},
		"reports.alumni.status":      {ID: "Status", EN: "Status"},
		"reports.alumni.all_former":  {ID: "Semua mantan siswa", EN: "All former students"},
		"reports.alumni.since":       {ID: "Sejak", EN: "Since"},
		"reports.alumni.note":        {ID: "Alasan", EN: "Reason"},
		"reports.alumni.items":       {ID: "Tagihan belum dibayar", EN: "Unpaid bills"},
		"reports.alumni.owing":       {ID: "%[1]d dari %[2]d mantan siswa masih berutang", EN: "%[1]d of %[2]d former {2:student|students} still owe"},
		"reports.alumni.nothing":     {ID: "Tidak ada mantan siswa yang masih mempunyai tagihan belum dibayar.", EN: "No former student has an unpaid bill."},
		"reports.sheet.alumni":       {ID: "Tunggakan alumni", EN: "Alumni arrears"},
		"reports.outstanding.former": {ID: "Termasuk %[1]d mantan siswa (lulus, pindah, keluar) dengan %[2]s.", EN: "Including %[1]d former {1:student|students} (graduated, moved, left) owing %[2]s."},
		// The audit of a status set.
		"audit.act.students.status": {ID: "Status siswa diubah", EN: "Student's status changed"},
		"audit.try.students.status": {ID: "Mengubah status siswa", EN: "Changing a student's status"},
	})
}
