package main

import (
	"testing"
	"testing/fstest"
)

func TestMemoryLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files fstest.MapFS
		want  int64
		from  string
	}{
		{"no cgroup", fstest.MapFS{}, defaultMemoryLimit, "default"},
		{"cgroup v2 unlimited", fstest.MapFS{"sys/fs/cgroup/memory.max": {Data: []byte("max\n")}}, defaultMemoryLimit, "default"},
		{"cgroup v2 512 MiB", fstest.MapFS{"sys/fs/cgroup/memory.max": {Data: []byte("536870912\n")}}, 384 << 20, "/sys/fs/cgroup/memory.max"},
		{"cgroup v1 unlimited", fstest.MapFS{"sys/fs/cgroup/memory/memory.limit_in_bytes": {Data: []byte("9223372036854771712\n")}}, defaultMemoryLimit, "default"},
		{"cgroup v1 2 GiB", fstest.MapFS{"sys/fs/cgroup/memory/memory.limit_in_bytes": {Data: []byte("2147483648")}}, 1536 << 20, "/sys/fs/cgroup/memory/memory.limit_in_bytes"},
	}
	for _, tt := range tests {
		got, from := memoryLimit(tt.files)
		if got != tt.want || from != tt.from {
			t.Errorf("%s: %d from %s, want %d from %s", tt.name, got, from, tt.want, tt.from)
		}
	}
}
