package i18n

// The shared vocabulary: shell, navigation, roles, states, buttons, pagination,
// form and error texts. Area files (messages_students.go, ...) use their own
// key prefix ("students.", "bills.", ...) so keys never collide.
func init() {
	Register(map[string]Message{
		// Application.
		"app.name":      {ID: "Portal Tagihan Sekolah", EN: "School Billing Portal"},
		"app.skip":      {ID: "Langsung ke isi halaman", EN: "Skip to main content"},
		"app.loading":   {ID: "Memuat…", EN: "Loading…"},
		"app.version":   {ID: "Versi %[1]s", EN: "Version %[1]s"},
		"app.timezone":  {ID: "Waktu ditampilkan dalam zona %[1]s.", EN: "Times are shown in the %[1]s time zone."},
		"app.copyright": {ID: "© %[1]s %[2]s", EN: "© %[1]s %[2]s"}, // the year as text: never "2.026"

		// Navigation.
		"nav.label":       {ID: "Navigasi utama", EN: "Main navigation"},
		"nav.breadcrumbs": {ID: "Jejak halaman", EN: "Breadcrumbs"},
		"nav.dashboard":   {ID: "Beranda", EN: "Dashboard"},
		"nav.counter":     {ID: "Loket", EN: "Counter"},
		"nav.students":    {ID: "Siswa", EN: "Students"},
		"nav.bills":       {ID: "Tagihan", EN: "Bills"},
		"nav.uploads":     {ID: "Unggah", EN: "Uploads"},
		"nav.reports":     {ID: "Laporan", EN: "Reports"},
		"nav.audit":       {ID: "Log Audit", EN: "Audit"},
		"nav.staff":       {ID: "Staf", EN: "Staff"},
		"nav.account":     {ID: "Akun saya", EN: "My account"},

		// Signed-in person and language switch.
		"user.signed_in_as": {ID: "Masuk sebagai %[1]s", EN: "Signed in as %[1]s"},
		"user.menu":         {ID: "Menu pengguna", EN: "User menu"},
		"lang.label":        {ID: "Bahasa", EN: "Language"},
		"lang.id":           {ID: "Bahasa Indonesia", EN: "Bahasa Indonesia"},
		"lang.en":           {ID: "English", EN: "English"},
		"lang.switch":       {ID: "Ganti bahasa", EN: "Change language"},

		// Roles.
		"role.admin":     {ID: "Admin", EN: "Admin"},
		"role.finance":   {ID: "Keuangan", EN: "Finance"},
		"role.principal": {ID: "Kepala Sekolah", EN: "Principal"},

		// Upstream environment banner: which payment service the portal talks to.
		"env.sandbox":          {ID: "SANDBOX — data demo, bukan uang sungguhan", EN: "SANDBOX — demo data, not real money"},
		"env.test":             {ID: "LINGKUNGAN UJI — terhubung ke layanan pembayaran uji, bukan uang sungguhan", EN: "TEST ENVIRONMENT — connected to the payment service's test system, not real money"},
		"env.production":       {ID: "PRODUKSI — transaksi sungguhan", EN: "PRODUCTION — real transactions"},
		"env.sandbox.short":    {ID: "Sandbox", EN: "Sandbox"},
		"env.test.short":       {ID: "Uji", EN: "Test"},
		"env.production.short": {ID: "Produksi", EN: "Production"},

		// Bill component states. "overdue" is ours: unpaid, past due, not yet expired.
		"state.provisioned": {ID: "Belum dibayar", EN: "Unpaid"},
		"state.paid":        {ID: "Lunas", EN: "Paid"},
		"state.expired":     {ID: "Kedaluwarsa", EN: "Expired"},
		"state.overdue":     {ID: "Terlambat", EN: "Overdue"},
		"state.all":         {ID: "Semua status", EN: "All states"},

		// The glossary: one word for each set of bills, the same on every page and in both
		// languages. A page that counts or sums bills uses these words for exactly these sets.
		//
		//   term.unpaid   Belum dibayar / Unpaid: every unpaid component that can still be
		//                 paid: not yet due, due today and overdue together. Not expired ones.
		//   term.not_due  Belum jatuh tempo / Not yet due: unpaid, due date today or later;
		//                 paying now costs the amount alone.
		//   term.overdue  Terlambat / Overdue: unpaid, past its due date, not yet expired:
		//                 the penalty applies when it is paid.
		//   term.arrears  Tunggakan / Arrears: what is owed past due, as a sum (a student's, a
		//                 class's, the school's): the overdue bills priced today and the
		//                 expired ones at their amount, each shown apart where both count.
		//                 Never the bills not yet due.
		//   term.expired  Kedaluwarsa / Expired: unpaid and past its expiry date; still owed,
		//                 but it cannot be paid until its expiry is extended (the counter's
		//                 "perpanjang lalu terima").
		//   term.paid     Lunas / Paid.
		//
		// So Belum dibayar = Belum jatuh tempo + Terlambat, Tunggakan = Terlambat + Kedaluwarsa,
		// and Kedaluwarsa is apart from Belum dibayar. The state.* labels name one bill's state with the same words.
		"term.unpaid":  {ID: "Belum dibayar", EN: "Unpaid"},
		"term.not_due": {ID: "Belum jatuh tempo", EN: "Not yet due"},
		"term.overdue": {ID: "Terlambat", EN: "Overdue"},
		"term.expired": {ID: "Kedaluwarsa", EN: "Expired"},
		"term.paid":    {ID: "Lunas", EN: "Paid"},

		// Billing vocabulary shared by several pages.
		"term.nis":              {ID: "NIS", EN: "Student ID (NIS)"},
		"term.student":          {ID: "Siswa", EN: "Student"},
		"term.student_name":     {ID: "Nama siswa", EN: "Student name"},
		"term.class":            {ID: "Kelas", EN: "Class"},
		"term.phone":            {ID: "No. telepon", EN: "Phone"},
		"term.email":            {ID: "Email", EN: "Email"},
		"term.description":      {ID: "Keterangan", EN: "Description"},
		"term.notes":            {ID: "Catatan", EN: "Notes"},
		"term.bill":             {ID: "Tagihan", EN: "Bill"},
		"term.component":        {ID: "Komponen tagihan", EN: "Bill item"},
		"term.component_name":   {ID: "Nama tagihan", EN: "Item name"},
		"term.account_code":     {ID: "Kode akun", EN: "Account code"},
		"term.amount":           {ID: "Nominal", EN: "Amount"},
		"term.penalty":          {ID: "Denda", EN: "Late fee"},
		"term.amount_due":       {ID: "Jumlah yang harus dibayar", EN: "Amount due"},
		"term.amount_paid":      {ID: "Jumlah dibayar", EN: "Amount paid"},
		"term.active_date":      {ID: "Tanggal aktif", EN: "Active from"},
		"term.due_date":         {ID: "Jatuh tempo", EN: "Due date"},
		"term.expiry_date":      {ID: "Kedaluwarsa", EN: "Expiry date"},
		"term.paid_date":        {ID: "Tanggal bayar", EN: "Payment date"},
		"term.ref_number":       {ID: "No. referensi", EN: "Reference no."},
		"term.state":            {ID: "Status", EN: "Status"},
		"term.arrears":          {ID: "Tunggakan", EN: "Arrears"},
		"term.spp":              {ID: "SPP", EN: "Tuition (SPP)"},
		"term.total":            {ID: "Total", EN: "Total"},
		"term.subtotal":         {ID: "Subtotal", EN: "Subtotal"},
		"term.period":           {ID: "Periode", EN: "Period"},
		"term.month":            {ID: "Bulan", EN: "Month"},
		"term.year":             {ID: "Tahun", EN: "Year"},
		"term.from":             {ID: "Dari", EN: "From"},
		"term.to":               {ID: "Sampai", EN: "To"},
		"term.date":             {ID: "Tanggal", EN: "Date"},
		"term.time":             {ID: "Waktu", EN: "Time"},
		"term.actions":          {ID: "Aksi", EN: "Actions"},
		"term.details":          {ID: "Rincian", EN: "Details"},
		"term.count":            {ID: "Jumlah", EN: "Count"},
		"term.yes":              {ID: "Ya", EN: "Yes"},
		"term.no":               {ID: "Tidak", EN: "No"},
		"term.all":              {ID: "Semua", EN: "All"},
		"term.none":             {ID: "Tidak ada", EN: "None"},
		"term.optional":         {ID: "opsional", EN: "optional"},
		"term.required":         {ID: "wajib", EN: "required"},
		"term.not_set":          {ID: "—", EN: "—"},
		"term.days_late":        {ID: "Hari terlambat", EN: "Days late"},
		"term.components_count": {ID: "%[1]d komponen", EN: "%[1]d {1:item|items}"},
		"term.students_count":   {ID: "%[1]d siswa", EN: "%[1]d {1:student|students}"},
		"term.payments_count":   {ID: "%[1]d pembayaran", EN: "%[1]d {1:payment|payments}"},

		// Buttons.
		"btn.save":     {ID: "Simpan", EN: "Save"},
		"btn.cancel":   {ID: "Batal", EN: "Cancel"},
		"btn.delete":   {ID: "Hapus", EN: "Delete"},
		"btn.edit":     {ID: "Ubah", EN: "Edit"},
		"btn.add":      {ID: "Tambah", EN: "Add"},
		"btn.view":     {ID: "Lihat", EN: "View"},
		"btn.search":   {ID: "Cari", EN: "Search"},
		"btn.filter":   {ID: "Terapkan filter", EN: "Apply filter"},
		"btn.reset":    {ID: "Atur ulang", EN: "Reset"},
		"btn.export":   {ID: "Ekspor", EN: "Export"},
		"btn.download": {ID: "Unduh", EN: "Download"},
		"btn.upload":   {ID: "Unggah", EN: "Upload"},
		"btn.print":    {ID: "Cetak", EN: "Print"},
		"btn.back":     {ID: "Kembali", EN: "Back"},
		"btn.next":     {ID: "Berikutnya", EN: "Next"},
		"btn.previous": {ID: "Sebelumnya", EN: "Previous"},
		"btn.confirm":  {ID: "Konfirmasi", EN: "Confirm"},
		"btn.close":    {ID: "Tutup", EN: "Close"},
		"btn.copy":     {ID: "Salin", EN: "Copy"},
		"btn.copied":   {ID: "Tersalin", EN: "Copied"},
		"btn.sign_in":  {ID: "Masuk", EN: "Sign in"},
		"btn.sign_out": {ID: "Keluar", EN: "Sign out"},

		// Confirmations asked before destructive actions.
		"confirm.delete":  {ID: "Yakin ingin menghapus? Tindakan ini tidak dapat dibatalkan.", EN: "Delete this? This cannot be undone."},
		"confirm.discard": {ID: "Perubahan yang belum disimpan akan hilang. Lanjutkan?", EN: "Unsaved changes will be lost. Continue?"},

		// Pagination.
		"page.label":   {ID: "Navigasi halaman", EN: "Pagination"},
		"page.of":      {ID: "Halaman %[1]d dari %[2]d", EN: "Page %[1]d of %[2]d"},
		"page.showing": {ID: "Menampilkan %[1]d–%[2]d dari %[3]d", EN: "Showing %[1]d–%[2]d of %[3]d"},
		"page.size":    {ID: "Baris per halaman", EN: "Rows per page"},
		"page.first":   {ID: "Pertama", EN: "First"},
		"page.last":    {ID: "Terakhir", EN: "Last"},

		// Sorting (for screen readers on sortable column headers).
		"sort.by":         {ID: "Urutkan menurut %[1]s", EN: "Sort by %[1]s"},
		"sort.ascending":  {ID: "urutan naik", EN: "ascending"},
		"sort.descending": {ID: "urutan turun", EN: "descending"},

		// Empty states.
		"empty.generic":  {ID: "Belum ada data.", EN: "Nothing here yet."},
		"empty.search":   {ID: "Tidak ada hasil untuk pencarian ini.", EN: "No results for this search."},
		"empty.filtered": {ID: "Tidak ada data yang cocok dengan filter. Coba atur ulang filter.", EN: "Nothing matches these filters. Try resetting them."},
		"empty.students": {ID: "Belum ada siswa terdaftar.", EN: "No students registered yet."},
		"empty.bills":    {ID: "Belum ada tagihan.", EN: "No bills yet."},
		"empty.payments": {ID: "Belum ada pembayaran.", EN: "No payments yet."},

		// Form errors.
		"form.errors":         {ID: "Ada isian yang perlu diperbaiki. Periksa kolom yang ditandai.", EN: "Some fields need attention. Check the marked fields."},
		"form.required":       {ID: "Wajib diisi.", EN: "Required."},
		"form.invalid_number": {ID: "Masukkan angka yang valid, misalnya 1250000.", EN: "Enter a valid number, for example 1250000."},
		"form.invalid_date":   {ID: "Tanggal tidak valid.", EN: "Not a valid date."},
		"form.invalid_email":  {ID: "Alamat email tidak valid.", EN: "Not a valid email address."},
		"form.invalid_choice": {ID: "Pilihan tidak valid.", EN: "Not a valid choice."},
		"form.too_long":       {ID: "Terlalu panjang: maksimal %[1]d karakter.", EN: "Too long: at most %[1]d {1:character|characters}."},
		"form.positive":       {ID: "Harus lebih besar dari nol.", EN: "Must be greater than zero."},
		"form.not_negative":   {ID: "Tidak boleh kurang dari nol.", EN: "Must not be less than zero."},
		"form.date_order":     {ID: "%[1]s tidak boleh setelah %[2]s.", EN: "%[1]s must not be after %[2]s."},
		"form.saved":          {ID: "Perubahan tersimpan.", EN: "Changes saved."},

		// Upstream (payment service) errors in plain words, by kind.
		"upstream.timeout":           {ID: "Layanan pembayaran tidak menjawab dalam %[1]d detik. Tidak ada yang tercatat; coba lagi.", EN: "The payment service did not answer within %[1]d {1:second|seconds}. Nothing was recorded; please try again."},
		"upstream.timeout_uncertain": {ID: "Layanan pembayaran tidak menjawab dalam %[1]d detik. Permintaan mungkin sudah tercatat: periksa datanya dulu sebelum mencoba lagi.", EN: "The payment service did not answer within %[1]d {1:second|seconds}. The request may have been recorded: check the data before trying again."},
		"upstream.unavailable":       {ID: "Layanan pembayaran sedang tidak tersedia. Tidak ada yang tercatat; coba lagi beberapa saat lagi.", EN: "The payment service is unavailable right now. Nothing was recorded; please try again in a few minutes."},
		"upstream.unauthorized":      {ID: "Layanan pembayaran menolak kredensial portal ini. Hubungi admin sekolah untuk memeriksa pengaturan akun layanan pembayaran.", EN: "The payment service rejected this portal's credentials. Please contact the school admin to check the payment service account settings."},
		"upstream.validation":        {ID: "Layanan pembayaran menolak data: %[1]s", EN: "The payment service rejected the data: %[1]s"},
		"upstream.not_found":         {ID: "Data tidak ditemukan di layanan pembayaran. Mungkin sudah dihapus.", EN: "The payment service has no such record. It may have been deleted."},
		"upstream.generic":           {ID: "Terjadi kesalahan saat menghubungi layanan pembayaran. Coba lagi; jika terus terjadi, hubungi admin.", EN: "Something went wrong while contacting the payment service. Please try again; if it keeps happening, contact the admin."},

		// Error pages.
		"error.title":      {ID: "Terjadi kesalahan", EN: "Something went wrong"},
		"error.400.title":  {ID: "Permintaan tidak valid", EN: "Bad request"},
		"error.400.body":   {ID: "Permintaan tidak dapat diproses. Kembali ke halaman sebelumnya dan coba lagi.", EN: "The request could not be processed. Go back and try again."},
		"error.403.title":  {ID: "Anda tidak memiliki akses", EN: "You do not have access"},
		"error.403.body":   {ID: "Halaman ini tidak tersedia untuk peran Anda. Hubungi admin jika Anda memerlukan akses.", EN: "This page is not available to your role. Contact the admin if you need access."},
		"error.404.title":  {ID: "Halaman tidak ditemukan", EN: "Page not found"},
		"error.404.body":   {ID: "Halaman yang Anda cari tidak ada atau sudah dipindahkan.", EN: "The page you are looking for does not exist or has moved."},
		"error.408.title":  {ID: "Isian terlalu lama terkirim", EN: "The form took too long to arrive"},
		"error.408.body":   {ID: "Isian ini tidak sampai utuh dalam waktu yang wajar, jadi tidak ada yang disimpan. Periksa sambungan internet, lalu kirim lagi.", EN: "This form did not arrive whole in a reasonable time, so nothing was saved. Check the internet connection, then send it again."},
		"error.413.title":  {ID: "Isian terlalu besar", EN: "The form is too large"},
		"error.413.body":   {ID: "Isian yang dikirim terlalu besar, jadi tidak ada yang disimpan.", EN: "What was sent is too large, so nothing was saved."},
		"error.too_large":  {ID: "Isian yang dikirim lebih besar dari %[1]s MB yang diterima halaman ini, jadi tidak ada yang disimpan. Kembali, perkecil isinya (misalnya berkas yang dilampirkan), lalu kirim lagi.", EN: "What was sent is larger than the %[1]s MB this page accepts, so nothing was saved. Go back, make it smaller (an attached file, say), and send it again."},
		"error.500.title":  {ID: "Terjadi kesalahan pada sistem", EN: "Something went wrong on our side"},
		"error.500.body":   {ID: "Kesalahan ini sudah dicatat. Coba lagi; jika terus terjadi, hubungi admin.", EN: "The error has been logged. Please try again; if it keeps happening, contact the admin."},
		"error.forbidden":  {ID: "Anda tidak memiliki akses untuk tindakan ini.", EN: "You are not allowed to do this."},
		"error.csrf":       {ID: "Formulir sudah kedaluwarsa. Muat ulang halaman lalu kirim lagi.", EN: "The form has expired. Reload the page and submit it again."},
		"error.session":    {ID: "Sesi Anda telah berakhir. Silakan masuk kembali.", EN: "Your session has ended. Please sign in again."},
		"error.request_id": {ID: "Kode kejadian: %[1]s", EN: "Incident code: %[1]s"},
		"error.go_home":    {ID: "Kembali ke Beranda", EN: "Back to the dashboard"},
	})
}
