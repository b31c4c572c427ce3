package i18n

// The report files: the two CSV flavours, named for what opens them, and the payment time.
func init() {
	Register(map[string]Message{
		"reports.export_csv_id":      {ID: "CSV (Excel Indonesia, ;)", EN: "CSV (Excel Indonesia, ;)"},
		"reports.export_csv_id_hint": {ID: "Untuk Excel berbahasa Indonesia: kolom dipisah titik koma, desimal dengan koma.", EN: "For Excel set to Indonesian: fields split by semicolons, a decimal comma."},
		"reports.export_csv_comma":   {ID: "CSV (,)", EN: "CSV (,)"},
		"reports.export_csv_comma_h": {ID: "Untuk aplikasi pembukuan dan Excel berbahasa Inggris: kolom dipisah koma, desimal dengan titik.", EN: "For bookkeeping tools and Excel set to English: fields split by commas, a decimal point."},
		"reports.export_label":       {ID: "Unduh:", EN: "Download:"},
		"reports.export_xlsx_short":  {ID: "Excel (.xlsx)", EN: "Excel (.xlsx)"},
		"reports.paid_time":          {ID: "Jam bayar", EN: "Time paid"},
	})
}
