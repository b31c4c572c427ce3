package i18n

// Tables that fit: the short words of merged columns, the phone menu and the pager's jump.
func init() {
	Register(map[string]Message{
		"tables.penalty_short":      {ID: "denda %[1]s", EN: "late fee %[1]s"},
		"tables.expiry_short":       {ID: "kedaluwarsa %[1]s", EN: "expires %[1]s"},
		"tables.paid_kept":          {ID: "Sudah dibayar", EN: "Paid"},
		"tables.paid_amount":        {ID: "dibayar %[1]s", EN: "paid %[1]s"},
		"bills.more_filters":        {ID: "Filter lainnya", EN: "More filters"},
		"nav.menu":                  {ID: "Menu", EN: "Menu"},
		"page.jump":                 {ID: "Halaman", EN: "Page"},
		"page.jump_of":              {ID: "dari %[1]s", EN: "of %[1]s"},
		"page.jump_go":              {ID: "Buka", EN: "Go"},
		"bills.notes_hint":          {ID: "Berisi teks ini, huruf besar/kecil sama saja", EN: "Contains this text, any letter case"},
		"bills.penalty_today_short": {ID: "+ denda", EN: "+ late fee"},
	})
}
