package sandbox

// Name parts of the demo school: common Indonesian given names and the
// second names and family names that follow them.
var (
	demoMaleNames = []string{
		"Adi", "Agus", "Ahmad", "Aldi", "Andika", "Arif", "Bagas", "Bayu", "Budi", "Dafa",
		"Dimas", "Dwi", "Eko", "Fajar", "Farhan", "Fikri", "Galih", "Gilang", "Hafiz", "Hendra",
		"Ilham", "Irfan", "Joko", "Kevin", "Lutfi", "Naufal", "Putra", "Raka", "Rafi", "Rangga",
		"Reza", "Rizky", "Satria", "Taufik", "Wahyu", "Yoga", "Yusuf", "Zaki", "Arya", "Bima",
		"Danu", "Fauzan", "Haikal", "Rendi", "Sandi", "Teguh", "Wisnu", "Akbar", "Alif", "Rehan",
	}
	demoFemaleNames = []string{
		"Aisyah", "Alya", "Amelia", "Annisa", "Ayu", "Bunga", "Citra", "Dewi", "Dinda", "Eka",
		"Fitri", "Indah", "Intan", "Kartika", "Larasati", "Lestari", "Maya", "Mega", "Nabila", "Nadia",
		"Nur", "Putri", "Rahma", "Ratna", "Rina", "Salsabila", "Sari", "Sinta", "Siti", "Tiara",
		"Vina", "Wulan", "Yuni", "Zahra", "Anisa", "Aulia", "Dian", "Fadhilah", "Hana", "Kirana",
		"Melati", "Nayla", "Puspita", "Rani", "Safira", "Tasya", "Utami", "Widya", "Yasmin", "Zaskia",
	}
	demoMaleMiddle   = []string{"Muhammad", "Muhammad", "Ahmad", "Dwi", "Eka", "Tri", "Rizky", "Putra", "Adi", "Nur"}
	demoFemaleMiddle = []string{"Siti", "Nur", "Dewi", "Dwi", "Eka", "Tri", "Ayu", "Putri", "Sri", "Rahma"}
	demoFamilyNames  = []string{
		"Pratama", "Saputra", "Wijaya", "Santoso", "Hidayat", "Nugroho", "Kurniawan", "Setiawan", "Lestari", "Wibowo",
		"Susanto", "Gunawan", "Hakim", "Firmansyah", "Ramadhan", "Permana", "Siregar", "Nasution", "Harahap", "Lubis",
		"Simanjuntak", "Sihombing", "Sitompul", "Purba", "Ginting", "Tarigan", "Wahyudi", "Maulana", "Hasibuan", "Kusuma",
		"Anggraini", "Rahmawati", "Handayani", "Puspitasari", "Wulandari", "Kusumawati", "Fitriani", "Safitri", "Utami", "Maharani",
		"Suryadi", "Halim", "Tanjung", "Sembiring", "Manurung", "Panjaitan", "Situmorang", "Rangkuti", "Daulay", "Syahputra",
		"Aritonang", "Pohan", "Batubara", "Effendi", "Iskandar", "Sutanto", "Prasetyo", "Hartono", "Budiman", "Sulistyo",
	}
	demoMonths = []string{
		"Januari", "Februari", "Maret", "April", "Mei", "Juni",
		"Juli", "Agustus", "September", "Oktober", "November", "Desember",
	}
	demoPhonePrefixes = []string{"0811", "0812", "0813", "0821", "0822", "0852", "0853", "0856", "0857", "0858", "0877", "0878", "0895", "0896"}
	demoMailDomains   = []string{"gmail.com", "gmail.com", "gmail.com", "yahoo.co.id", "yahoo.com", "outlook.com"}
)
