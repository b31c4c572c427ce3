package i18n

// The confirmation step a guarded action answers with until it is confirmed (an upload's
// commit and discard, a template's deletion, …): the titles the actions' own words do not
// already give, and the reprint of a receipt (SALINAN).
func init() {
	Register(map[string]Message{
		"confirm.upload_commit":      {ID: "Kirim unggahan", EN: "Send the upload"},
		"confirm.upload_commit_ask":  {ID: "Kirim baris unggahan ini ke layanan pembayaran?", EN: "Send this upload's rows to the payment service?"},
		"payments.receipt.copy":      {ID: "SALINAN", EN: "COPY"},
		"payments.receipt.copy_note": {ID: "Cetak ulang. Kuitansi asli diberikan saat pembayaran.", EN: "Reprint. The original was given at payment."},
		"parent.receipt_copy_note":   {ID: "Salinan dari catatan sekolah. Bukti aslinya kuitansi dari loket atau bukti bayar dari bank.", EN: "A copy of the school's record. The original is the counter's receipt or the bank's proof of payment."},
		"students.receipt_reprint":   {ID: "Cetak ulang kuitansi", EN: "Reprint the receipt"},
		"class_pick.none":            {ID: "— Tanpa kelas —", EN: "— No class —"},
		"class_pick.new_choice":      {ID: "Kelas baru…", EN: "New class…"},
		"class_pick.new_label":       {ID: "Kelas baru (bila belum ada di daftar)", EN: "New class (when it is not in the list)"},
		"class_pick.hint":            {ID: "Pilih kelas dari daftar siswa sekolah; untuk kelas yang belum ada, pilih “Kelas baru…” dan ketik namanya.", EN: "Choose a class from the school's roster; for one it does not have yet, choose “New class…” and type its name."},
		"confirm.template_delete":    {ID: "Hapus template %[1]s", EN: "Delete the template %[1]s"},
	})
}
