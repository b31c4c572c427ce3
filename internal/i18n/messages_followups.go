package i18n

// Follow-ups of arrears (internal/followups): the WhatsApp message to parents (always
// Indonesian; the EN side is for reading it in the catalogue), the reminder letter and
// the arrears report's follow-up column and actions.
func init() {
	Register(map[string]Message{
		"followups.wa.school_fallback": {ID: "sekolah", EN: "the school"},
		"followups.wa.greeting":        {ID: "Yth. Bapak/Ibu orang tua/wali %[1]s,", EN: "Dear parents/guardians of %[1]s,"},
		"followups.wa.intro": {ID: "Dengan hormat, kami dari %[1]s ingin mengingatkan bahwa tagihan %[2]s (NIS %[3]s) berikut sudah melewati jatuh tempo:",
			EN: "With respect, we at %[1]s would like to remind you that the following bills of %[2]s (NIS %[3]s) are past their due date:"},
		"followups.wa.item": {ID: "- %[1]s (jatuh tempo %[2]s, terlambat %[3]d hari): %[4]s",
			EN: "- %[1]s (due %[2]s, %[3]d {3:day|days} late): %[4]s"},
		"followups.wa.more":          {ID: "- dan %[1]d tagihan lainnya", EN: "- and %[1]d more {1:item|items}"},
		"followups.wa.total":         {ID: "Total: %[1]s", EN: "Total: %[1]s"},
		"followups.wa.total_penalty": {ID: "Total: %[1]s (termasuk denda %[2]s)", EN: "Total: %[1]s (including %[2]s late fees)"},
		"followups.wa.how": {ID: "Pembayaran dapat dilakukan di bank dengan menyebutkan NIS %[1]s, atau di loket sekolah. Mohon abaikan pesan ini bila sudah membayar.",
			EN: "You can pay at the bank by giving NIS %[1]s, or at the school's counter. Please ignore this message if you have already paid."},
		"followups.wa.closing": {ID: "Terima kasih atas perhatian Bapak/Ibu.\nHormat kami,\nBagian Keuangan %[1]s",
			EN: "Thank you for your attention.\nKind regards,\nFinance office, %[1]s"},

		// Actions and their outcomes.
		"followups.whatsapp":           {ID: "WhatsApp", EN: "WhatsApp"},
		"followups.whatsapp_add_phone": {ID: "WhatsApp: isi nomor HP dulu", EN: "WhatsApp: add a mobile number first"},
		"followups.whatsapp_hint":      {ID: "Buka WhatsApp dengan pesan pengingat yang sudah terisi, dan catat tindak lanjutnya", EN: "Open WhatsApp with the reminder typed in, and record the follow-up"},
		"followups.reminder":           {ID: "Surat pengingat", EN: "Reminder letter"},
		"followups.reminder_short":     {ID: "Surat", EN: "Letter"},
		"followups.channel.whatsapp":   {ID: "WhatsApp", EN: "WhatsApp"},
		"followups.channel.letter":     {ID: "Surat", EN: "Letter"},
		"followups.last":               {ID: "Tindak lanjut terakhir", EN: "Last follow-up"},
		"followups.never":              {ID: "Belum pernah", EN: "None yet"},
		"followups.by":                 {ID: "oleh %[1]s", EN: "by %[1]s"},
		"followups.no_phone":           {ID: "%[1]s belum punya nomor telepon. Tambahkan nomor WhatsApp orang tua di kontak orang tua, atau kirim surat pengingat.", EN: "%[1]s has no phone number. Add the parents' WhatsApp number to their contacts, or send a reminder letter."},
		"followups.not_mobile":         {ID: "Nomor %[2]s milik %[1]s bukan nomor HP yang bisa dihubungi lewat WhatsApp. Perbaiki nomornya di kontak orang tua, atau kirim surat pengingat.", EN: "%[2]s, the number of %[1]s, is not a mobile number WhatsApp can reach. Correct it in the parents' contacts, or send a reminder letter."},
		"followups.nothing_overdue":    {ID: "%[1]s tidak punya tagihan terlambat hari ini: tidak ada yang perlu diingatkan.", EN: "%[1]s has no overdue bill today: there is nothing to remind of."},
		"followups.letter_recorded":    {ID: "Surat pengingat untuk %[1]s dicatat sebagai terkirim.", EN: "The reminder letter to %[1]s is recorded as sent."},
		"followups.record_letter":      {ID: "Catat sebagai terkirim", EN: "Record as sent"},
		"followups.record_letter_h":    {ID: "Mencatat di laporan tunggakan bahwa surat ini sudah dicetak dan diberikan", EN: "Notes on the arrears report that this letter was printed and handed over"},
		"followups.failed":             {ID: "Tindak lanjut tidak dapat dicatat. Coba lagi sebentar lagi.", EN: "The follow-up could not be recorded. Please try again shortly."},
		"followups.audit_overdue":      {ID: "%[1]d tagihan terlambat", EN: "%[1]d overdue {1:item|items}"},
		"audit.act.followup.whatsapp":  {ID: "Tindak lanjut WhatsApp", EN: "WhatsApp follow-up"},
		"audit.act.followup.letter":    {ID: "Surat pengingat dicatat terkirim", EN: "Reminder letter recorded as sent"},
		"audit.try.followup.whatsapp":  {ID: "Mencatat tindak lanjut WhatsApp", EN: "Recording a WhatsApp follow-up"},
		"audit.try.followup.letter":    {ID: "Mencatat surat pengingat", EN: "Recording a reminder letter"},

		// The reminder letter.
		"reminder.title":     {ID: "Surat pengingat tunggakan", EN: "Arrears reminder letter"},
		"reminder.doc_title": {ID: "SURAT PENGINGAT", EN: "REMINDER"},
		"reminder.subtitle":  {ID: "Tagihan yang sudah lewat jatuh tempo", EN: "Bills past their due date"},
		"reminder.intro":     {ID: "Melalui surat ini kami mengingatkan dengan hormat bahwa tagihan %[1]s berikut sudah melewati jatuh tempo per %[2]s:", EN: "With this letter we respectfully remind you that the following bills of %[1]s are past their due date as of %[2]s:"},
		"reminder.nothing":   {ID: "%[1]s tidak punya tagihan terlambat per %[2]s. Terima kasih.", EN: "%[1]s has no overdue bill as of %[2]s. Thank you."},
		"reminder.total":     {ID: "Total yang harus dibayar", EN: "Total to pay"},
		"reminder.please":    {ID: "Mohon tagihan tersebut dapat segera dilunasi. Denda keterlambatan sudah termasuk dalam jumlah di atas; bila sudah membayar, mohon abaikan surat ini.", EN: "Please settle these bills soon. Late fees are included in the amounts above; if you have already paid, please ignore this letter."},
		"reminder.sent_last": {ID: "Terakhir dicatat terkirim: %[1]s, %[2]s", EN: "Last recorded as sent: %[1]s, %[2]s"},
		"reminder.col_late":  {ID: "Terlambat", EN: "Late"},
		"reminder.days_late": {ID: "%[1]d hari", EN: "%[1]d {1:day|days}"},
		"reminder.col_today": {ID: "Harus dibayar", EN: "To pay"},

		// The arrears report.
		"reports.outstanding.switch_all":   {ID: "Tampilkan semua yang belum dibayar (termasuk belum jatuh tempo)", EN: "Show all unpaid (not yet due included)"},
		"reports.outstanding.showing_late": {ID: "Menampilkan tagihan terlambat saja.", EN: "Showing overdue bills only."},
		"reports.outstanding.showing_all":  {ID: "Menampilkan semua tagihan yang belum dibayar.", EN: "Showing every unpaid bill."},
		"reports.outstanding.show_all":     {ID: "Tampilkan semua yang belum dibayar", EN: "Show all unpaid"},
		"reports.outstanding.show_late":    {ID: "Tampilkan yang terlambat saja", EN: "Show overdue only"},
		"reports.outstanding.oldest":       {ID: "Jatuh tempo terlama", EN: "Oldest due"},
		"reports.outstanding.days_late":    {ID: "terlambat %[1]d hari", EN: "%[1]d {1:day|days} late"},
		"reports.outstanding.scope":        {ID: "Cakupan", EN: "Scope"},
	})
}
