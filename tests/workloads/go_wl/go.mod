module go_wl

go 1.19
