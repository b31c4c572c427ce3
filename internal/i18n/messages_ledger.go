package i18n

// The ledger: how fresh the figures are (ledger.*), the payment callback, and the
// admins' data page (settings.data.*).
func init() {
	Register(map[string]Message{
		// Freshness beside the figures.
		"ledger.clock":            {ID: "%[1]s.%[2]s", EN: "%[1]s:%[2]s"},
		"ledger.fresh":            {ID: "Terkini · %[1]s", EN: "Up to date · %[1]s"},
		"ledger.stale":            {ID: "Sinkron terakhir %[1]s: %[2]s", EN: "Last synced %[1]s: %[2]s"},
		"ledger.stale_never":      {ID: "Belum pernah sinkron: %[1]s", EN: "Never synced: %[1]s"},
		"ledger.filling":          {ID: "Masih mengisi data: %[1]d%% (%[2]s dari %[3]s tagihan)", EN: "Still filling: %[1]d%% (%[2]s of %[3]s {3:bill|bills})"},
		"ledger.filling_count":    {ID: "Masih mengisi data: %[1]s tagihan terbaca", EN: "Still filling: %[1]s {1:bill|bills} read"},
		"ledger.filling_stopped":  {ID: "%[1]s · terhenti %[2]s: %[3]s; dilanjutkan otomatis", EN: "%[1]s · stopped %[2]s: %[3]s; it resumes on its own"},
		"ledger.empty":            {ID: "Belum ada data: sinkron pertama dengan layanan pembayaran sedang dimulai", EN: "No data yet: the first sync with the payment service is starting"},
		"ledger.sync_now":         {ID: "Sinkronkan sekarang", EN: "Sync now"},
		"ledger.sync_asked":       {ID: "sinkron diminta, sebentar lagi", EN: "sync asked for, in a moment"},
		"ledger.unreadable":       {ID: "Data tagihan tidak dapat dibaca dari basis data portal. Coba lagi sebentar lagi.", EN: "The bills could not be read from the portal's database. Try again in a moment."},
		"ledger.sync_asked_flash": {ID: "Sinkron dengan layanan pembayaran diminta; angka diperbarui begitu selesai.", EN: "A sync with the payment service has been asked for; the figures update as soon as it ends."},

		// Why the last sync failed.
		"ledger.problem.unavailable":  {ID: "layanan pembayaran tidak menjawab", EN: "the payment service is not answering"},
		"ledger.problem.timeout":      {ID: "layanan pembayaran tidak menjawab tepat waktu", EN: "the payment service did not answer in time"},
		"ledger.problem.unauthorized": {ID: "layanan pembayaran menolak kredensial portal", EN: "the payment service refused the portal's credentials"},
		"ledger.problem.other":        {ID: "sinkron mengalami kesalahan (lihat halaman Data)", EN: "the sync ran into an error (see the Data page)"},
		"ledger.problem.stopped":      {ID: "portal dihentikan saat sinkron berjalan", EN: "the portal stopped while it ran"},
		"ledger.problem.idle":         {ID: "sinkron tidak berjalan", EN: "the sync is not running"},

		// The kinds of sync run.
		"ledger.run.fill":        {ID: "Pengisian pertama", EN: "First fill"},
		"ledger.run.incremental": {ID: "Sinkron berkala", EN: "Incremental sync"},
		"ledger.run.reconcile":   {ID: "Pencocokan penuh", EN: "Full reconcile"},

		// What a run changed.
		"ledger.changed.none":      {ID: "tidak ada perubahan", EN: "no changes"},
		"ledger.changed.new":       {ID: "%[1]s tagihan baru", EN: "%[1]s new {1:bill|bills}"},
		"ledger.changed.changed":   {ID: "%[1]s tagihan berubah", EN: "%[1]s {1:bill|bills} changed"},
		"ledger.changed.students":  {ID: "%[1]s siswa baru atau berubah", EN: "%[1]s {1:student|students} added or changed"},
		"ledger.changed.removed":   {ID: "%[1]s siswa dihapus", EN: "%[1]s {1:student|students} removed"},
		"ledger.changed.looked_up": {ID: "%[1]s tagihan dicek satu per satu", EN: "%[1]s {1:bill|bills} looked up one by one"},
		"ledger.changed.corrected": {ID: "%[1]s selisih diperbaiki (tercatat di log audit)", EN: "%[1]s differences corrected (in the audit log)"},
		"ledger.changed.callbacks": {ID: "%[1]s pembayaran notifikasi lama dikoreksi sesuai layanan", EN: "%[1]s {1:payment|payments} of old callbacks corrected from the service"},
		"ledger.changed.calls":     {ID: "%[1]s panggilan", EN: "%[1]s {1:call|calls}"},

		// The admins' data page.
		"settings.data.title":              {ID: "Data", EN: "Data"},
		"settings.data.intro":              {ID: "Portal menyimpan salinan semua siswa dan tagihan dari layanan pembayaran, dan setiap halaman membacanya. Salinan ini diperbarui oleh notifikasi pembayaran, sinkron berkala, dan pencocokan penuh setiap malam.", EN: "The portal keeps a copy of every student and bill at the payment service, and every page reads it. The copy is kept up to date by payment callbacks, an incremental sync and a full reconcile every night."},
		"settings.data.state":              {ID: "Keadaan", EN: "State"},
		"settings.data.components":         {ID: "Tagihan tersimpan", EN: "Bills held"},
		"settings.data.students":           {ID: "Siswa tersimpan", EN: "Students held"},
		"settings.data.every":              {ID: "Sinkron berkala setiap %[1]s; pencocokan penuh setiap malam setelah pukul %[2]s.00 (%[3]s).", EN: "Incremental sync every %[1]s; full reconcile every night after %[2]s:00 (%[3]s)."},
		"settings.data.every_no_nightly":   {ID: "Sinkron berkala setiap %[1]s; pencocokan penuh malam hari dimatikan (hanya atas permintaan).", EN: "Incremental sync every %[1]s; the nightly full reconcile is off (on request only)."},
		"settings.data.last_incremental":   {ID: "Sinkron berkala terakhir", EN: "Last incremental sync"},
		"settings.data.last_reconcile":     {ID: "Pencocokan penuh terakhir", EN: "Last full reconcile"},
		"settings.data.last_fill":          {ID: "Pengisian pertama", EN: "First fill"},
		"settings.data.never":              {ID: "Belum pernah", EN: "Never"},
		"settings.data.running":            {ID: "Sedang berjalan sejak %[1]s", EN: "Running since %[1]s"},
		"settings.data.ok":                 {ID: "Berhasil", EN: "Ended well"},
		"settings.data.failed":             {ID: "Gagal: %[1]s", EN: "Failed: %[1]s"},
		"settings.data.when":               {ID: "Waktu", EN: "When"},
		"settings.data.took":               {ID: "Lama", EN: "Took"},
		"settings.data.outcome":            {ID: "Hasil", EN: "Outcome"},
		"settings.data.changes":            {ID: "Yang berubah", EN: "What changed"},
		"settings.data.instance":           {ID: "Instans", EN: "Instance"},
		"settings.data.asked_by":           {ID: "diminta oleh %[1]s", EN: "asked for by %[1]s"},
		"settings.data.recent":             {ID: "Sinkron terakhir", EN: "Recent runs"},
		"settings.data.recent_none":        {ID: "Belum ada sinkron.", EN: "No run yet."},
		"settings.data.span_seconds":       {ID: "%[1]d detik", EN: "%[1]d {1:second|seconds}"},
		"settings.data.span_minutes":       {ID: "%[1]d menit", EN: "%[1]d min"},
		"settings.data.seconds":            {ID: "%[1]s dtk", EN: "%[1]s s"},
		"settings.data.minutes":            {ID: "%[1]d mnt %[2]s dtk", EN: "%[1]d min %[2]s s"},
		"settings.data.reconcile_now":      {ID: "Cocokkan penuh sekarang", EN: "Reconcile now"},
		"settings.data.reconcile_help":     {ID: "Membaca ulang semua tagihan dari layanan pembayaran dan memperbaiki setiap selisih (perubahan di luar portal, penghapusan, pembayaran yang notifikasinya tidak datang). Setiap perbaikan tercatat di log audit. Untuk sekolah besar dapat memakan waktu beberapa menit; portal tetap bisa dipakai.", EN: "Reads every bill again from the payment service and corrects every difference (changes made outside the portal, deletions, payments whose callback never came). Each correction is recorded in the audit log. For a large school it can take a few minutes; the portal stays usable."},
		"settings.data.reconcile_confirm":  {ID: "Jalankan pencocokan penuh sekarang?", EN: "Run a full reconcile now?"},
		"settings.data.reconcile_asked":    {ID: "Pencocokan penuh diminta; berjalan dalam beberapa detik di instans yang memegang sinkron.", EN: "A full reconcile has been asked for; it starts within seconds on the instance that holds the sync."},
		"settings.data.reconcile_waiting":  {ID: "Pencocokan penuh diminta %[1]s dan menunggu giliran.", EN: "A full reconcile was asked for %[1]s and waits its turn."},
		"settings.data.callbacks":          {ID: "Notifikasi pembayaran", EN: "Payment callbacks"},
		"settings.data.callback_url":       {ID: "Alamat yang diberikan ke operator layanan pembayaran:", EN: "The address to give the payment service's operator:"},
		"settings.data.callback_url_unset": {ID: "Alamat notifikasi pembayaran untuk operator adalah alamat publik portal ditambah /hooks/payments. Atur PORTAL_PUBLIC_URL (mis. https://portal.sekolah.sch.id) agar halaman ini menampilkannya.", EN: "The payment callback address for the operator is the portal's public address followed by /hooks/payments. Set PORTAL_PUBLIC_URL (e.g. https://portal.sekolah.sch.id) for this page to show it."},
		"settings.data.callbacks_week":     {ID: "%[1]s notifikasi diterima dalam 7 hari terakhir; terakhir %[2]s.", EN: "%[1]s callbacks received in the last 7 days; the last one %[2]s."},
		"settings.data.callbacks_never":    {ID: "Belum pernah ada notifikasi pembayaran yang diterima.", EN: "No payment callback has ever been received."},
		"settings.data.callbacks_hint":     {ID: "Dalam 7 hari terakhir tercatat %[1]s pembayaran tetapi tidak ada satu pun notifikasi pembayaran yang sampai. Jika orang tua membayar di bank, periksa bahwa operator layanan pembayaran memakai alamat di atas dan bahwa alamat itu dapat dijangkau dari internet. Sementara itu pembayaran tetap masuk lewat sinkron berkala, hanya lebih lambat.", EN: "%[1]s {1:payment was|payments were} recorded in the last 7 days, yet not one payment callback arrived. If parents pay at banks, check that the payment service's operator uses the address above and that it can be reached from the internet. Meanwhile payments still arrive through the incremental sync, only later."},
	})
}
