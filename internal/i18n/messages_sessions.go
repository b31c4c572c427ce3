package i18n

func init() {
	Register(map[string]Message{
		// The person's own account page.
		"account.title":            {ID: "Akun saya", EN: "My account"},
		"account.link":             {ID: "Akun saya: sesi dan kata sandi", EN: "My account: sessions and password"},
		"account.password":         {ID: "Ganti kata sandi", EN: "Change password"},
		"account.password_intro":   {ID: "Setelah diganti, Anda keluar dari semua perangkat lain; perangkat ini tetap masuk.", EN: "Once it is changed, you are signed out on every other device; this one stays signed in."},
		"account.current_password": {ID: "Kata sandi saat ini", EN: "Current password"},
		"account.repeat_password":  {ID: "Ulangi kata sandi baru", EN: "Repeat the new password"},
		"account.password_hint":    {ID: "Minimal 10 karakter; jangan sama dengan nama pengguna.", EN: "At least 10 characters; not your username."},
		"account.password_save":    {ID: "Ganti kata sandi", EN: "Change password"},
		"account.password_ok":      {ID: "Kata sandi diganti. Perangkat lain sudah dikeluarkan.", EN: "Password changed. Other devices have been signed out."},
		"account.err.current":      {ID: "Kata sandi saat ini salah.", EN: "The current password is wrong."},
		"account.err.repeat":       {ID: "Kedua kata sandi baru tidak sama.", EN: "The two new passwords differ."},
		// Sessions lists (own account and an admin's staff page).
		"sessions.title_own":             {ID: "Tempat Anda masuk", EN: "Where you are signed in"},
		"sessions.intro_own":             {ID: "Perangkat yang sedang masuk dengan akun Anda. Akhiri yang tidak Anda kenali, lalu ganti kata sandi.", EN: "Devices signed in with your account. End any you do not recognise, then change your password."},
		"sessions.title_staff":           {ID: "Sesi aktif", EN: "Active sessions"},
		"sessions.intro_staff":           {ID: "Perangkat tempat %[1]s sedang masuk.", EN: "Devices where %[1]s is signed in."},
		"sessions.device":                {ID: "Perangkat", EN: "Device"},
		"sessions.signed_in_at":          {ID: "Masuk sejak %[1]s", EN: "Signed in %[1]s"},
		"sessions.last_seen":             {ID: "Terakhir aktif", EN: "Last active"},
		"sessions.current":               {ID: "Sesi ini", EN: "This session"},
		"sessions.unknown_device":        {ID: "Peramban tidak dikenal", EN: "Unknown browser"},
		"sessions.none":                  {ID: "Tidak ada sesi aktif.", EN: "No active sessions."},
		"sessions.end":                   {ID: "Akhiri", EN: "End"},
		"sessions.end_aria":              {ID: "Akhiri sesi %[1]s dari %[2]s", EN: "End the session of %[1]s from %[2]s"},
		"sessions.end_all_own":           {ID: "Keluar dari semua perangkat", EN: "Sign out everywhere"},
		"sessions.end_all_own_confirm":   {ID: "Keluar dari semua perangkat, termasuk yang ini?", EN: "Sign out on every device, this one included?"},
		"sessions.end_all_staff":         {ID: "Akhiri semua sesi", EN: "End all sessions"},
		"sessions.end_all_staff_confirm": {ID: "Akhiri semua sesi %[1]s? Ia harus masuk lagi di setiap perangkat.", EN: "End every session of %[1]s? They will have to sign in again on each device."},
		"sessions.ended_ok":              {ID: "Sesi diakhiri.", EN: "Session ended."},
		"sessions.ended_all_ok":          {ID: "Semua sesi %[1]s diakhiri.", EN: "Every session of %[1]s has ended."},
		"sessions.already_ended":         {ID: "Sesi itu sudah berakhir.", EN: "That session had already ended."},
		"sessions.signed_out_everywhere": {ID: "Anda sudah keluar dari semua perangkat.", EN: "You have signed out on every device."},
		"staff.changes_sign_out":         {ID: "Mengubah peran, kata sandi atau status akun ini mengeluarkan pemiliknya dari semua perangkat.", EN: "Changing this account's role, password or status signs its owner out on every device."},
	})
}
