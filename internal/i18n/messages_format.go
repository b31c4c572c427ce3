package i18n

// Words the formatting functions of this package need.
func init() {
	Register(map[string]Message{
		"rel.today":         {ID: "hari ini", EN: "today"},
		"rel.late.one":      {ID: "terlambat %[1]d hari", EN: "%[1]d day late"},
		"rel.late.other":    {ID: "terlambat %[1]d hari", EN: "%[1]d days late"},
		"rel.in.one":        {ID: "dalam %[1]d hari", EN: "in %[1]d day"},
		"rel.in.other":      {ID: "dalam %[1]d hari", EN: "in %[1]d days"},
		"ago.now":           {ID: "baru saja", EN: "just now"},
		"ago.minutes.one":   {ID: "%[1]d menit lalu", EN: "%[1]d minute ago"},
		"ago.minutes.other": {ID: "%[1]d menit lalu", EN: "%[1]d minutes ago"},
		"ago.hours.one":     {ID: "%[1]d jam lalu", EN: "%[1]d hour ago"},
		"ago.hours.other":   {ID: "%[1]d jam lalu", EN: "%[1]d hours ago"},
		"ago.days.one":      {ID: "%[1]d hari lalu", EN: "%[1]d day ago"},
		"ago.days.other":    {ID: "%[1]d hari lalu", EN: "%[1]d days ago"},
	})
}
