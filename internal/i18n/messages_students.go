package i18n

// The students area: roster, sync, student form, student page, statement and the
// add-components form.
func init() {
	Register(map[string]Message{
		// A student's standing (students.Status).
		"students.status.active":    {ID: "Aktif", EN: "Active"},
		"students.status.graduated": {ID: "Lulus", EN: "Graduated"},
		"students.status.moved":     {ID: "Pindah", EN: "Moved to another school"},
		"students.status.left":      {ID: "Keluar", EN: "Left"},
		// Roster.
		"students.lead":               {ID: "Daftar siswa yang dikenal portal, dengan tagihan yang belum dibayar per siswa.", EN: "The students the portal knows, with what each one has unpaid."},
		"students.add":                {ID: "Tambah siswa", EN: "Add student"},
		"students.back":               {ID: "Kembali ke daftar siswa", EN: "Back to the students"},
		"students.search":             {ID: "Cari NIS atau nama", EN: "Search by NIS or name"},
		"students.search_placeholder": {ID: "Ketik NIS atau nama siswa…", EN: "Type a student ID or name…"},
		"students.class_all":          {ID: "Semua kelas", EN: "All classes"},
		"students.empty_hint":         {ID: "Tambahkan siswa satu per satu, atau tekan “Sinkronkan sekarang” untuk mengambil siswa yang sudah ada di layanan pembayaran.", EN: "Add students one by one, or press “Sync now” to fetch the students the payment service already has."},
		"students.col.outstanding":    {ID: "Belum dibayar", EN: "Unpaid"},
		"students.col.overdue":        {ID: "Terlambat", EN: "Overdue"},
		"students.col.synced":         {ID: "Terakhir dicek", EN: "Last checked"},
		"students.col.source":         {ID: "Masuk lewat", EN: "Added through"},
		"students.totals_unknown":     {ID: "— berarti jumlah yang belum dibayar belum dapat dihitung: portal masih membaca semua tagihan dari layanan pembayaran untuk pertama kali. Angkanya muncul begitu selesai.", EN: "— means the unpaid total cannot be worked out yet: the portal is still reading every bill from the payment service for the first time. The figures show as soon as it is done."},

		// Where a roster entry came from.
		"students.source.portal":       {ID: "Diisi di portal", EN: "Typed in the portal"},
		"students.source.upload":       {ID: "Unggahan berkas", EN: "File upload"},
		"students.source.sync":         {ID: "Data layanan pembayaran", EN: "The payment service's records"},
		"students.source.checkout":     {ID: "Pendaftaran (loket)", EN: "Registration (counter)"},
		"students.source.registration": {ID: "Pendaftaran daring", EN: "Online registration"},

		// Roster sync.
		"students.sync.start":       {ID: "Sinkronkan sekarang", EN: "Sync now"},
		"students.sync.title":       {ID: "Sinkronisasi dengan layanan pembayaran", EN: "Sync with the payment service"},
		"students.sync.started":     {ID: "Sinkron dengan layanan pembayaran diminta; mulai dalam beberapa detik. Kemajuannya tampil di halaman ini.", EN: "A sync with the payment service has been asked for; it starts within seconds. Its progress shows on this page."},
		"students.sync.waiting":     {ID: "Sinkron diminta; mulai dalam beberapa detik…", EN: "Sync asked for; it starts within seconds…"},
		"students.sync.running":     {ID: "%[1]s berjalan sejak %[2]s…", EN: "%[1]s running since %[2]s…"},
		"students.sync.done":        {ID: "%[1]s terakhir %[2]s: %[3]s.", EN: "%[1]s, last run %[2]s: %[3]s."},
		"students.sync.failed":      {ID: "%[1]s gagal %[2]s: %[3]s.", EN: "%[1]s failed %[2]s: %[3]s."},
		"students.sync.asked_by":    {ID: "(diminta oleh %[1]s)", EN: "(asked for by %[1]s)"},
		"students.sync.refresh":     {ID: "Muat ulang untuk melihat kemajuan", EN: "Reload to see the progress"},
		"students.sync.failed_note": {ID: "Daftar dan tunggakan tetap dari sinkron terakhir yang berhasil; sinkron dicoba lagi otomatis setiap menit.", EN: "The list and the totals stay as of the last sync that ended well; the sync tries again on its own every minute."},

		// Student form.
		"students.new.title":        {ID: "Tambah siswa", EN: "Add a student"},
		"students.new.lead":         {ID: "Siswa langsung didaftarkan di layanan pembayaran, lalu muncul di daftar siswa.", EN: "The student is registered at the payment service at once, then shows in the list."},
		"students.edit.title":       {ID: "Ubah data siswa", EN: "Edit student"},
		"students.field.key_name":   {ID: "Jenis nomor induk", EN: "ID kind"},
		"students.field.nis_hint":   {ID: "1–32 karakter: huruf, angka, titik (.) atau tanda hubung (-).", EN: "1–32 characters: letters, digits, dots (.) or dashes (-)."},
		"students.field.nis_fixed":  {ID: "NIS tidak dapat diubah.", EN: "The student ID cannot be changed."},
		"students.field.class":      {ID: "Kelas / keterangan", EN: "Class / description"},
		"students.field.class_hint": {ID: "Contoh: Kelas 7A", EN: "For example: Kelas 7A"},
		"students.field.phone_hint": {ID: "Nomor Indonesia, contoh: 0812-3456-7890 atau +62 812 3456 7890.", EN: "An Indonesian number, e.g. 0812-3456-7890 or +62 812 3456 7890."},
		"students.err.nis":          {ID: "NIS hanya boleh berisi 1–32 huruf, angka, titik (.) atau tanda hubung (-), tanpa spasi.", EN: "The student ID may only hold 1–32 letters, digits, dots (.) or dashes (-), without spaces."},
		"students.err.search_long":  {ID: "Pencarian ini terlalu panjang: paling banyak %[1]d karakter. Ketik sebagian nama atau NIS saja.", EN: "This search is too long: at most %[1]d {1:character|characters}. Type part of a name or a student ID."},
		"students.err.phone":        {ID: "Nomor telepon tidak valid. Tulis seperti 0812-3456-7890 atau +62 812 3456 7890.", EN: "Not a valid phone number. Write it like 0812-3456-7890 or +62 812 3456 7890."},
		"students.err.exists":       {ID: "NIS %[1]s sudah terdaftar di layanan pembayaran. Periksa nomornya, atau cari siswa ini di daftar siswa.", EN: "Student ID %[1]s is already registered at the payment service. Check the number, or look the student up in the list."},
		"students.err.service":      {ID: "Ditolak layanan pembayaran: %[1]s", EN: "Rejected by the payment service: %[1]s"},
		"students.created_ok":       {ID: "Siswa %[1]s (NIS %[2]s) sudah terdaftar.", EN: "Student %[1]s (ID %[2]s) is registered."},
		"students.updated_ok":       {ID: "Data siswa %[1]s tersimpan.", EN: "%[1]s's details are saved."},
		"students.roster_lag":       {ID: "Perubahan sudah tersimpan di layanan pembayaran, tetapi daftar siswa portal belum diperbarui. Jalankan “Sinkronkan sekarang” untuk memperbaikinya.", EN: "The change is saved at the payment service, but the portal's list of students is not updated yet. Run “Sync now” to fix it."},

		// Delete.
		"students.delete.title":        {ID: "Hapus siswa", EN: "Delete student"},
		"students.delete.body":         {ID: "Siswa %[1]s (NIS %[2]s) beserta semua tagihannya yang belum dibayar akan dihapus dari layanan pembayaran. Tindakan ini tidak dapat dibatalkan.", EN: "%[1]s (ID %[2]s) and all of their unpaid bills will be deleted from the payment service. This cannot be undone."},
		"students.delete.confirm":      {ID: "Ya, hapus siswa ini", EN: "Yes, delete this student"},
		"students.delete.edit_instead": {ID: "Ubah data siswa", EN: "Edit the student's details"},
		"students.delete.retry":        {ID: "Coba lagi", EN: "Try again"},
		"students.more":                {ID: "Lainnya", EN: "More"},
		"students.delete.has_payments": {ID: "Siswa ini sudah memiliki pembayaran, jadi tidak dapat dihapus: riwayat pembayaran harus tetap tersimpan. Ubah datanya bila perlu.", EN: "This student already has payments, so they cannot be deleted: the payment history must be kept. Edit their details if needed."},
		"students.deleted_ok":          {ID: "Siswa %[1]s (NIS %[2]s) sudah dihapus.", EN: "%[1]s (ID %[2]s) has been deleted."},
		"students.deleted_already":     {ID: "Siswa dengan NIS %[1]s sudah tidak ada di layanan pembayaran; dihapus juga dari daftar siswa.", EN: "The payment service no longer has student ID %[1]s; it was removed from the list too."},

		// Student page.
		"students.details":           {ID: "Data siswa", EN: "Student details"},
		"students.bills":             {ID: "Komponen tagihan", EN: "Bill items"},
		"students.outstanding_today": {ID: "Bila dibayar hari ini", EN: "If paid today"},
		"students.as_of":             {ID: "per %[1]s, termasuk denda keterlambatan", EN: "as of %[1]s, late fees included"},
		"students.due_today":         {ID: "Tagihan hari ini", EN: "To pay today"},
		"students.active_from":       {ID: "aktif mulai %[1]s", EN: "active from %[1]s"},
		"students.record_payment":    {ID: "Catat pembayaran", EN: "Record payment"},
		"students.add_components":    {ID: "Tambah komponen", EN: "Add bill items"},
		"students.statement":         {ID: "Rincian tagihan", EN: "Bill statement"},

		// Statement.
		"students.statement.title":     {ID: "Rincian Tagihan Siswa", EN: "Student Bill Statement"},
		"students.statement.printed":   {ID: "Dicetak %[1]s", EN: "Printed %[1]s"},
		"students.statement.item":      {ID: "Komponen", EN: "Item"},
		"students.statement.paid":      {ID: "Dibayar", EN: "Paid"},
		"students.statement.to_pay":    {ID: "Tagihan", EN: "To pay"},
		"students.statement.running":   {ID: "Saldo", EN: "Running total"},
		"students.statement.total":     {ID: "Total yang harus dibayar hari ini", EN: "Total to pay today"},
		"students.statement.note":      {ID: "Tagihan yang terlambat sudah termasuk denda. Tagihan kedaluwarsa tidak dapat dibayar lagi; hubungi bagian keuangan sekolah.", EN: "Late items include the late fee. Expired items can no longer be paid; contact the school's finance office."},
		"students.statement.signature": {ID: "Bagian Keuangan", EN: "Finance office"},

		// Add components.
		"students.components.title":            {ID: "Tambah komponen tagihan", EN: "Add bill items"},
		"students.components.lead":             {ID: "Isi satu baris per komponen; baris yang kosong diabaikan. Nominal boleh ditulis 1250000, 1.250.000 atau Rp 1.250.000. Denda kosong berarti 0. Tanggal aktif boleh dikosongkan.", EN: "Fill one row per item; empty rows are ignored. Amounts may be written 1250000, 1.250.000 or Rp 1.250.000. An empty late fee means 0. The active date may be left empty."},
		"students.components.name_placeholder": {ID: "mis. SPP Januari", EN: "e.g. SPP January"},
		"students.components.row":              {ID: "Komponen %[1]d", EN: "Item %[1]d"},
		"students.components.add_row":          {ID: "Tambah baris", EN: "Add row"},
		"students.components.add_row_hint":     {ID: "Tambah baris dulu sebelum mengisi: tanpa JavaScript, isian yang belum disimpan hilang saat baris ditambah.", EN: "Add rows before filling them in: without JavaScript, unsaved entries are lost when a row is added."},
		"students.components.save":             {ID: "Simpan komponen", EN: "Save items"},
		"students.components.none":             {ID: "Isi minimal satu baris.", EN: "Fill in at least one row."},
		"students.components.refused":          {ID: "Layanan pembayaran menolak sebagian baris, jadi tidak ada yang disimpan. Perbaiki baris yang ditandai lalu simpan lagi.", EN: "The payment service rejected some rows, so nothing was saved. Fix the marked rows and save again."},
		"students.components.created_ok":       {ID: "%[1]d komponen tagihan ditambahkan untuk %[2]s.", EN: "%[1]d bill {1:item|items} added for %[2]s."},
	})
}
