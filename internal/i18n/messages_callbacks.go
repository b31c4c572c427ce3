package i18n

// Payment callbacks as notices, not facts (issue 30): the dashboard's payments announced
// but not confirmed yet, and the admins' Data page about callbacks that waited, disagreed
// with the payment service, or came again with another body.
func init() {
	Register(map[string]Message{
		// The dashboard.
		"callbacks.unconfirmed": {
			ID: "%[1]d pembayaran dari bank (%[2]s) sudah diberitahukan tetapi belum dikonfirmasi layanan pembayaran sejak %[3]s; belum dihitung dalam angka di bawah sampai dikonfirmasi.",
			EN: "%[1]d {1:payment|payments} from banks (%[2]s) announced but not confirmed by the payment service since %[3]s; not counted in the figures below until confirmed.",
		},

		// The Data page: callbacks that wait.
		"settings.data.callbacks_waiting": {
			ID: "%[1]d notifikasi menunggu konfirmasi layanan pembayaran sejak %[2]s; portal menanyakannya lagi secara otomatis.",
			EN: "%[1]d {1:callback waits|callbacks wait} for the payment service's confirmation since %[2]s; the portal asks again on its own.",
		},
		"settings.data.callbacks_waiting_problem": {
			ID: "Terakhir ditanyakan %[1]s: %[2]s.",
			EN: "Last asked %[1]s: %[2]s.",
		},
		"ledger.problem.unknown_ref": {ID: "layanan belum mengenal pembayaran dengan nomor referensi itu", EN: "the service does not know a payment with that reference yet"},

		// The Data page: callbacks that disagree with the service.
		"settings.data.callbacks_flagged": {ID: "Notifikasi yang tidak sesuai", EN: "Callbacks that disagree"},
		"settings.data.callbacks_flagged_help": {
			ID: "Notifikasi pembayaran baru dipercaya setelah layanan pembayaran mengonfirmasinya: yang dicatat portal selalu data layanan itu sendiri. Notifikasi di bawah menyebut hal lain daripada layanan, atau dikirim ulang dengan isi lain. Bila ini terjadi tanpa sebab yang jelas, laporkan kepada operator layanan pembayaran: mungkin ada yang memalsukan notifikasi.",
			EN: "A payment callback is believed only once the payment service confirms it: what the portal records is always the service's own record. The callbacks below said something other than the service, or came again with another body. If this happens for no clear reason, tell the payment service's operator: someone may be forging callbacks.",
		},
		"settings.data.callbacks_flagged_none": {ID: "Tidak ada: setiap notifikasi sesuai dengan layanan pembayaran.", EN: "None: every callback agrees with the payment service."},
		"settings.data.callbacks_flagged_count": {
			ID: "%[1]d notifikasi tidak sesuai dengan layanan pembayaran; yang terbaru di bawah.",
			EN: "%[1]d {1:callback disagrees|callbacks disagree} with the payment service; the latest are below.",
		},

		"callbacks.ref":              {ID: "No. referensi %[1]s", EN: "Reference %[1]s"},
		"callbacks.received":         {ID: "Diterima %[1]s", EN: "Received %[1]s"},
		"callbacks.received_at":      {ID: "Diterima %[1]s dari %[2]s", EN: "Received %[1]s from %[2]s"},
		"callbacks.status.disputed":  {ID: "Tidak sesuai", EN: "Disagrees"},
		"callbacks.status.confirmed": {ID: "Sesuai", EN: "Agrees"},
		"callbacks.status.unconfirmed": {
			ID: "Menunggu konfirmasi", EN: "Awaiting confirmation",
		},
		"callbacks.status.resent": {ID: "Dikirim ulang dengan isi lain", EN: "Sent again with another body"},
		"callbacks.status.legacy": {ID: "Diterima sebelum ada konfirmasi", EN: "Received before confirmation"},
		"callbacks.side.callback": {ID: "Menurut notifikasi", EN: "The callback says"},
		"callbacks.side.service":  {ID: "Menurut layanan pembayaran", EN: "The payment service says"},
		"callbacks.side.resent":   {ID: "Kiriman ulang terakhir", EN: "The last resend says"},
		"callbacks.items":         {ID: "%[1]d tagihan", EN: "%[1]d {1:item|items}"},
		"callbacks.no_payment":    {ID: "Tidak ada pembayaran", EN: "No payment"},
		"callbacks.not_asked":     {ID: "Belum ditanyakan", EN: "Not asked yet"},
		"callbacks.resent": {
			ID: "Nomor referensi ini dikirim ulang %[1]d kali dengan isi lain (terakhir %[2]s). Isi pertama yang disimpan, dan yang dicatat hanya data layanan.",
			EN: "This reference came again %[1]d {1:time|times} with another body (the last %[2]s). The first body is kept, and only the service's records are recorded.",
		},
		"callbacks.recorded": {
			ID: "Yang dicatat portal: data layanan pembayaran.",
			EN: "What the portal recorded: the payment service's records.",
		},
		"callbacks.recorded_none": {
			ID: "Tidak ada yang dicatat: layanan tidak mengenal pembayaran ini.",
			EN: "Nothing was recorded: the service knows no such payment.",
		},

		// What disagreed, in words.
		"callbacks.diff.student":    {ID: "Siswa: notifikasi menyebut NIS %[1]s, layanan NIS %[2]s.", EN: "Student: the callback names NIS %[1]s, the service NIS %[2]s."},
		"callbacks.diff.component":  {ID: "%[1]s bukan bagian dari pembayaran ini di layanan (notifikasi: %[2]s).", EN: "%[1]s is not part of this payment at the service (the callback: %[2]s)."},
		"callbacks.diff.omitted":    {ID: "%[1]s dibayar dengan pembayaran ini di layanan (%[2]s), tetapi tidak disebut notifikasi.", EN: "%[1]s is paid by this payment at the service (%[2]s), yet the callback leaves it out."},
		"callbacks.diff.amount":     {ID: "%[1]s: notifikasi %[2]s, layanan %[3]s.", EN: "%[1]s: the callback %[2]s, the service %[3]s."},
		"callbacks.diff.total":      {ID: "Jumlah: notifikasi %[1]s, layanan %[2]s.", EN: "Total: the callback %[1]s, the service %[2]s."},
		"callbacks.diff.date":       {ID: "Tanggal bayar: notifikasi %[1]s, layanan %[2]s.", EN: "Payment date: the callback %[1]s, the service %[2]s."},
		"callbacks.diff.unknown":    {ID: "Layanan tidak mengenal pembayaran dengan nomor referensi ini.", EN: "The service knows no payment with this reference."},
		"callbacks.diff.unverified": {ID: "Isi yang tersimpan tidak lagi cocok dengan kata sandi layanan yang dipakai sekarang.", EN: "The stored body no longer matches the service password in use now."},
		"callbacks.component":       {ID: "%[1]s (NIS %[2]s)", EN: "%[1]s (NIS %[2]s)"},
		"callbacks.component_unknown": {
			ID: "Tagihan %[1]s yang tidak dikenal", EN: "Unknown bill item %[1]s",
		},

		// The audit log.
		"audit.act.ledger.callback.disputed": {ID: "Notifikasi pembayaran tidak sesuai dengan layanan", EN: "Payment callback disagrees with the service"},
		"audit.try.ledger.callback.disputed": {ID: "Notifikasi pembayaran tidak sesuai dengan layanan", EN: "Payment callback disagrees with the service"},
		"audit.act.ledger.callback.resent":   {ID: "Notifikasi pembayaran dikirim ulang dengan isi lain", EN: "Payment callback sent again with another body"},
		"audit.try.ledger.callback.resent":   {ID: "Notifikasi pembayaran dikirim ulang dengan isi lain", EN: "Payment callback sent again with another body"},
	})
}
