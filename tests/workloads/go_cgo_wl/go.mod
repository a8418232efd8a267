module go_cgo_wl

go 1.19
