package i18n

// Letters a school signs (internal/letters): what every letter carries (number, subject,
// place and date, signatures), the components not payable yet, the page that prints a
// class's letters, and the school profile's fields for them.
func init() {
	Register(map[string]Message{
		"letter.number":           {ID: "Nomor", EN: "Number"},
		"letter.attachment":       {ID: "Lampiran", EN: "Attachment"},
		"letter.subject":          {ID: "Perihal", EN: "Subject"},
		"letter.subject_bill":     {ID: "Pemberitahuan tagihan sekolah", EN: "Notice of school bills"},
		"letter.subject_reminder": {ID: "Pengingat tunggakan pembayaran", EN: "Reminder of overdue payments"},
		"letter.place_date_city":  {ID: "%[1]s, %[2]s", EN: "%[1]s, %[2]s"},
		"letter.at_place":         {ID: "di tempat", EN: "By hand"},
		"letter.acknowledged":     {ID: "Mengetahui,", EN: "Acknowledged,"},
		"letter.principal":        {ID: "Kepala Sekolah", EN: "Principal"},
		"letter.bursar":           {ID: "Bendahara", EN: "Bursar"},
		"letter.nip":              {ID: "NIP. %[1]s", EN: "NIP %[1]s"},
		"letter.later_intro": {ID: "Tagihan berikut belum dapat dibayar hari ini dan tidak termasuk dalam jumlah di atas; masing-masing dapat dibayar mulai tanggal yang tertera:",
			EN: "The following bills cannot be paid yet and are not in the total above; each can be paid from the day shown:"},

		"letters.title":         {ID: "Cetak surat untuk orang tua", EN: "Print letters to parents"},
		"letters.nav":           {ID: "Cetak surat satu kelas", EN: "Print a class's letters"},
		"letters.intro":         {ID: "Surat tagihan atau surat pengingat untuk semua siswa satu kelas, satu siswa per halaman A4, bernomor dan siap ditandatangani.", EN: "Bill letters or reminders for every student of a class, one student per A4 page, numbered and ready to sign."},
		"letters.choose_class":  {ID: "Pilih kelas…", EN: "Choose a class…"},
		"letters.kind":          {ID: "Jenis surat", EN: "Kind of letter"},
		"letters.show":          {ID: "Tampilkan", EN: "Show"},
		"letters.count":         {ID: "%[1]d surat, satu per halaman.", EN: "%[1]d {1:letter|letters}, one per page."},
		"letters.skipped":       {ID: "%[1]d siswa tanpa tagihan yang perlu diberitahukan tidak disertakan.", EN: "%[1]d {1:student|students} with nothing to ask for left out."},
		"letters.missing":       {ID: "NIS berikut tidak ada di daftar siswa: %[1]s.", EN: "These NIS are not on the roster: %[1]s."},
		"letters.no_students":   {ID: "Tidak ada siswa di kelas atau daftar ini.", EN: "There are no students in this class or list."},
		"letters.too_many":      {ID: "Terlalu banyak siswa sekaligus: paling banyak %[1]d surat per cetakan. Pilih satu kelas.", EN: "Too many students at once: at most %[1]d {1:letter|letters} per printing. Choose one class."},
		"letters.none_to_print": {ID: "Tidak ada surat untuk dicetak: tidak ada siswa dengan tagihan yang perlu diberitahukan.", EN: "There is nothing to print: no student has anything to ask for."},
		"letters.record":        {ID: "Catat %[1]d pengingat sebagai terkirim", EN: "Record %[1]d {1:reminder|reminders} as sent"},
		"letters.record_h":      {ID: "Mencatat di laporan tunggakan bahwa surat-surat ini sudah dicetak dan diberikan, satu tindak lanjut per siswa", EN: "Notes on the arrears report that these letters were printed and handed over, one follow-up per student"},
		"letters.recorded":      {ID: "%[1]d surat pengingat dicatat sebagai terkirim.", EN: "%[1]d {1:reminder|reminders} recorded as sent."},
		"letters.record_failed": {ID: "Pencatatan terhenti: %[1]d surat sudah tercatat. Coba lagi; yang sudah tercatat tidak hilang.", EN: "Recording stopped: %[1]d {1:letter was|letters were} recorded. Try again; what was recorded stays."},
		"letters.from_report":   {ID: "Cetak surat pengingat (%[1]d)", EN: "Print reminders (%[1]d)"},
		"letters.from_report_h": {ID: "Surat pengingat untuk semua siswa di laporan ini, satu per halaman", EN: "Reminders for every student in this report, one per page"},

		"school.letters_section":      {ID: "Surat untuk orang tua", EN: "Letters to parents"},
		"school.city":                 {ID: "Tempat (kota) surat", EN: "Place (city) of letters"},
		"school.city_hint":            {ID: "Ditulis di depan tanggal surat, misalnya Bandung, 28 November 2026.", EN: "Written before the letters' date, e.g. Bandung, 28 November 2026."},
		"school.bursar_name":          {ID: "Nama bendahara", EN: "Bursar's name"},
		"school.bursar_nip":           {ID: "NIP bendahara", EN: "Bursar's NIP"},
		"school.principal_name":       {ID: "Nama kepala sekolah", EN: "Principal's name"},
		"school.principal_nip":        {ID: "NIP kepala sekolah", EN: "Principal's NIP"},
		"school.nip_hint":             {ID: "NIP 18 angka, atau nomor induk pegawai yayasan. Boleh dikosongkan.", EN: "The 18-digit NIP, or the foundation's staff number. May be left empty."},
		"school.letter_pattern":       {ID: "Pola nomor surat", EN: "Letter number pattern"},
		"school.letter_pattern_h":     {ID: "Contoh {seq}/KEU/{MMR}/{YYYY}: {MMR} bulan dalam angka Romawi (XI), kode lain seperti nomor kuitansi. Kosongkan untuk {seq}/KEU/{MMR}/{YYYY}.", EN: "For example {seq}/KEU/{MMR}/{YYYY}: {MMR} is the month in Roman numerals (XI), the other codes as for receipts. Leave it empty for {seq}/KEU/{MMR}/{YYYY}."},
		"school.err.nip":              {ID: "Tulis NIP dengan angka saja (8 sampai 20 angka).", EN: "Write the NIP in digits only (8 to 20 digits)."},
		"school.err.nip_without_name": {ID: "Isi juga namanya: NIP dicetak di bawah nama.", EN: "Fill in the name too: the NIP is printed under it."},
	})
}
