package i18n

// The counter's search, its live total, receipt numbers and the receipt's words (the
// rest of the counter's words are in messages_bills.go).
func init() {
	Register(map[string]Message{
		// Finding the student.
		"payments.search":             {ID: "Cari siswa: nama atau NIS", EN: "Find the student: name or NIS"},
		"payments.search_placeholder": {ID: "Ketik nama atau NIS…", EN: "Type a name or NIS…"},
		"payments.search_hint":        {ID: "Orang tua biasanya menyebut nama siswa; hasilnya muncul selagi Anda mengetik.", EN: "Parents usually give the student's name; matches show as you type."},
		"payments.matches":            {ID: "Siswa yang cocok dengan “%[1]s”", EN: "Students matching “%[1]s”"},
		"payments.matches_more":       {ID: "… dan %[1]d siswa lain. Ketik lebih lengkap untuk mempersempit.", EN: "… and %[1]d more {1:student|students}. Type more to narrow it down."},
		"payments.no_match_name":      {ID: "Tidak ada siswa bernama “%[1]s” di daftar siswa. Periksa ejaannya, cari dengan NIS, atau sinkronkan data siswa.", EN: "No student named “%[1]s” in the student list. Check the spelling, search by NIS, or sync the roster."},
		"payments.no_match_nis":       {ID: "NIS %[1]s tidak ada di daftar siswa maupun di layanan pembayaran.", EN: "NIS %[1]s is neither in the student list nor at the payment service."},
		"payments.search_failed":      {ID: "Daftar siswa tidak dapat dibaca: %[1]s", EN: "The student list could not be read: %[1]s"},
		"payments.pick":               {ID: "Pilih", EN: "Choose"},
		"payments.change_student":     {ID: "Ganti siswa", EN: "Another student"},
		"payments.unpaid_known":       {ID: "Belum dibayar %[1]s", EN: "Unpaid %[1]s"},

		// The live total of the ticked components.
		"payments.selected_total":    {ID: "Total yang dipilih", EN: "Total of the chosen items"},
		"payments.selected_count":    {ID: "%[1]s tagihan dipilih", EN: "%[1]s {1:item|items} chosen"}, // a count, or "{n}" for the page's script
		"payments.selected_nojs":     {ID: "Total yang dipilih dihitung ulang di halaman konfirmasi.", EN: "The total of the chosen items is worked out again on the confirmation page."},
		"payments.payable_all":       {ID: "Semua yang dapat dibayar hari ini:", EN: "Everything payable today:"},
		"payments.ref_suggested":     {ID: "Nomor berikutnya menurut pola kuitansi sekolah (%[1]s). Boleh diganti dengan nomor pada kuitansi tulis tangan.", EN: "The next number of the school's receipt pattern (%[1]s). Replace it with a handwritten receipt's number if there is one."},
		"payments.ref_taken":         {ID: "No. kuitansi %[1]s sudah dipakai untuk pembayaran %[2]s (NIS %[3]s) pada %[4]s sebesar %[5]s. Satu nomor kuitansi sebaiknya untuk satu pembayaran.", EN: "Receipt no. %[1]s is already used for the payment of %[2]s (NIS %[3]s) on %[4]s, %[5]s. One receipt number should name one payment."},
		"payments.ref_taken_change":  {ID: "Ganti nomor kuitansi", EN: "Change the receipt number"},
		"payments.ref_taken_reuse":   {ID: "Saya tetap memakai nomor ini untuk pembayaran ini", EN: "Use this number for this payment all the same"},
		"payments.ref_taken_confirm": {ID: "Centang dulu bahwa nomor ini tetap dipakai, atau ganti nomornya.", EN: "Tick that the number is used all the same, or change the number."},

		// The receipt.
		"payments.receipt.class":         {ID: "Kelas", EN: "Class"},
		"payments.receipt.in_words":      {ID: "Terbilang", EN: "In words"},
		"payments.receipt.via_service":   {ID: "Dibayar melalui bank / layanan pembayaran", EN: "Paid through a bank / the payment service"},
		"payments.receipt.npsn":          {ID: "NPSN %[1]s", EN: "NPSN %[1]s"},
		"payments.receipt.phone":         {ID: "Telp. %[1]s", EN: "Tel. %[1]s"},
		"payments.receipt.no_profile":    {ID: "Nama dan alamat sekolah belum diisi. Admin dapat mengisinya di Pengaturan › Profil sekolah.", EN: "The school's name and address are not filled in yet. An admin can fill them in under Settings › School profile."},
		"payments.receipt.no_profile_go": {ID: "Isi profil sekolah", EN: "Fill in the school profile"},
	})
}
