package i18n

// Corrections: editing and cancelling components, the bulk corrections of the bills list
// and the undo of an upload.
func init() {
	Register(map[string]Message{
		"corrections.actions":               {ID: "Koreksi", EN: "Correct"},
		"corrections.select":                {ID: "Pilih", EN: "Choose"},
		"corrections.select_one":            {ID: "Pilih %[1]s", EN: "Choose %[1]s"},
		"corrections.refused.paid":          {ID: "Sudah dibayar: riwayat pembayaran disimpan", EN: "Paid: the payment history is kept"},
		"corrections.refused.deleted":       {ID: "Sudah dibatalkan", EN: "Already cancelled"},
		"corrections.edit.title":            {ID: "Ubah tagihan", EN: "Edit a bill"},
		"corrections.edit.lead":             {ID: "Hanya kolom yang Anda ubah yang dikirim ke layanan pembayaran; perubahan dicatat di log audit.", EN: "Only the fields you change are sent to the payment service; the change is recorded in the audit log."},
		"corrections.edit.expired":          {ID: "Tagihan ini sudah kedaluwarsa. Tanggal kedaluwarsa baru di masa depan membuatnya bisa dibayar lagi.", EN: "This bill has expired. A new expiry date in the future makes it payable again."},
		"corrections.edit.save":             {ID: "Simpan perubahan", EN: "Save the changes"},
		"corrections.edit.nothing":          {ID: "Tidak ada yang diubah: ubah minimal satu kolom.", EN: "Nothing changed: change at least one field."},
		"corrections.edit.done":             {ID: "Tagihan %[1]s milik %[2]s diubah.", EN: "The bill %[1]s of %[2]s was changed."},
		"corrections.cancel.title":          {ID: "Batalkan tagihan", EN: "Cancel bills"},
		"corrections.cancel.one":            {ID: "Batalkan", EN: "Cancel"},
		"corrections.cancel.selected":       {ID: "Batalkan yang dipilih", EN: "Cancel the chosen bills"},
		"corrections.cancel.selected_hint":  {ID: "Centang tagihan yang belum dibayar, lalu konfirmasi di halaman berikutnya.", EN: "Tick unpaid bills, then confirm on the next page."},
		"corrections.cancel.none":           {ID: "Tidak ada tagihan yang bisa dibatalkan: pilih minimal satu tagihan yang belum dibayar.", EN: "No bill can be cancelled: choose at least one unpaid bill."},
		"corrections.cancel.kept":           {ID: "%[1]d tagihan tidak dibatalkan:", EN: "%[1]d {1:bill is|bills are} not cancelled:"},
		"corrections.cancel.body":           {ID: "%[1]d tagihan sebesar %[2]s akan dibatalkan. Tagihan yang dibatalkan tidak bisa dibayar lagi.", EN: "%[1]d {1:bill|bills} of %[2]s will be cancelled. A cancelled bill can no longer be paid."},
		"corrections.cancel.reason":         {ID: "Alasan pembatalan", EN: "Reason for cancelling"},
		"corrections.cancel.reason_hint":    {ID: "Dikirim ke layanan pembayaran dan disimpan di log audit, misalnya “salah nominal, diunggah ulang”.", EN: "Sent to the payment service and kept in the audit log, e.g. “wrong amount, uploaded again”."},
		"corrections.cancel.warning":        {ID: "Pembatalan tidak bisa diurungkan; tagihan baru bisa dibuat lagi bila perlu.", EN: "A cancellation cannot be undone; new bills can be made again if needed."},
		"corrections.cancel.confirm":        {ID: "Ya, batalkan %[1]d tagihan", EN: "Yes, cancel %[1]d {1:bill|bills}"},
		"corrections.cancel.done":           {ID: "%[1]d tagihan (%[2]s) milik %[3]s dibatalkan.", EN: "%[1]d {1:bill|bills} (%[2]s) of %[3]s cancelled."},
		"corrections.cancel.paid_meanwhile": {ID: "Layanan pembayaran menolak pembatalan: %[1]s sudah dibayar sementara itu. Muat ulang halaman siswa.", EN: "The payment service refused the cancellation: %[1]s has been paid meanwhile. Reload the student's page."},
	})
}
