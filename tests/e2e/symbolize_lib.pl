#!/usr/bin/perl
# Helpers for tests/e2e/symbolize*.sh (perl is always on Debian: perl-base).
#
#  symbolize_lib.pl addrs PID MAPPATH ELF SYMFILE STEP
#     runtime addresses in PID of the functions (nm -S, sized T/t/W/w symbols
#     of SYMFILE) of ELF mapped from MAPPATH: every STEP-th byte of each
#     function (always its first and last byte). Translation through readelf's
#     PT_LOADs and /proc/PID/maps, independent of the code under test.
#  symbolize_lib.pl compare MINE EU SYMFILE [BIAS_FILE]
#     MINE and EU are "-a -f -i" outputs (with file:line lines). Frames agree
#     when names are equal; a name from the symbol table may be any alias at
#     the same address. Prints "agree N of M" and the first disagreements.
use strict;
use warnings;
no warnings 'portable';

my $cmd = shift;
my (@segs, @maps);
sub layout {
	my ($pid, $mappath, $elf) = @_;
	open(my $re, '-|', 'readelf', '-lW', $elf) or die;
	while (<$re>) {
		next unless /^\s*LOAD\s+(0x\S+)\s+(0x\S+)\s+\S+\s+(0x\S+)\s+(0x\S+)\s+(.*?)\s+0x/;
		push @segs, [hex($1), hex($2), hex($3), $5];
	}
	open(my $m, '<', "/proc/$pid/maps") or die "maps: $!";
	while (<$m>) {
		my ($s, $e, $p, $off, $path) = /^(\w+)-(\w+) (\S+) (\w+) \S+ \S+\s+(.*)$/ or next;
		next unless $path eq $mappath && $p =~ /x/;
		push @maps, [hex($s), hex($e), hex($off)];
	}
	die "no executable mapping of $mappath in $pid\n" unless @maps;
}
# runtime address -> ELF vaddr
sub vaddr {
	my ($rt) = @_;
	for my $mm (@maps) {
		next unless $rt >= $mm->[0] && $rt < $mm->[1];
		my $fo = $rt - $mm->[0] + $mm->[2];
		for my $s (@segs) {
			return $fo - $s->[0] + $s->[1] if $fo >= $s->[0] && $fo < $s->[0] + $s->[2];
		}
	}
	return undef;
}

if ($cmd eq 'addrs') {
	my ($pid, $mappath, $elf, $symfile, $step) = @ARGV;
	layout($pid, $mappath, $elf);
	open(my $nm, '-|', 'nm', '-S', '--defined-only', $symfile) or die;
	while (<$nm>) {
		my ($v, $sz, $t, $name) = /^(\w+) (\w+) ([TtWw]) (\S+)/ or next;
		($v, $sz) = (hex($v), hex($sz));
		next unless $sz;
		my $last;
		for (my $a = $v; $a < $v + $sz; $a += $step) {
			my $rt = rt($a);
			printf("%x\n", $rt) if defined $rt;
			$last = $a;
		}
		if ($last != $v + $sz - 1) {
			my $rt = rt($v + $sz - 1);
			printf("%x\n", $rt) if defined $rt;
		}
	}
	sub rt {
		my ($a) = @_;
		for my $s (@segs) {
			next unless $a >= $s->[1] && $a < $s->[1] + $s->[2];
			my $fo = $a - $s->[1] + $s->[0];
			for my $mm (@maps) {
				return $mm->[0] + $fo - $mm->[2] if $fo >= $mm->[2] && $fo < $mm->[2] + $mm->[1] - $mm->[0];
			}
		}
		return undef;
	}
} elsif ($cmd eq 'funcs') {
	# funcs PID MAPPATH ELF SYMFILE: "runtime-address name" of each sized function
	my ($pid, $mappath, $elf, $symfile) = @ARGV;
	layout($pid, $mappath, $elf);
	open(my $nm, '-|', 'nm', '-S', '--defined-only', $symfile) or die;
	while (<$nm>) {
		my ($v, $sz, $t, $name) = /^(\w+) (\w+) ([TtWw]) (\S+)/ or next;
		next unless hex($sz);
		my $rt = rt(hex($v));
		printf("%x %s\n", $rt, $name) if defined $rt;
	}
} elsif ($cmd eq 'plt') {
	# plt PID MAPPATH ELF: "runtime-address name@plt" of objdump's PLT entries;
	# an IRELATIVE slot's (objdump: *ABS*+0xRESOLVER@plt) named by the
	# IFUNC symbol at its resolver, one without a leading underscore first
	my ($pid, $mappath, $elf) = @ARGV;
	layout($pid, $mappath, $elf);
	my %ifunc;
	open(my $rs, '-|', 'readelf', '-sW', '--dyn-syms', $elf) or die;
	while (<$rs>) {
		my ($v, $name) = /^\s*\d+:\s+([0-9a-f]+)\s+\d+\s+IFUNC\s+\S+\s+\S+\s+\S+\s+(\S+)/ or next;
		$name =~ s/\@.*//;
		my $k = hex($v);
		$ifunc{$k} = $name if !defined $ifunc{$k} || ($ifunc{$k} =~ /^_/ && $name !~ /^_/);
	}
	open(my $od, '-|', 'objdump', '-d', '-j', '.plt', '-j', '.plt.sec', $elf) or die;
	while (<$od>) {
		my ($v, $name) = /^([0-9a-f]+) <(.*\@plt)>:$/ or next;
		if (my ($r) = $name =~ /^\*ABS\*\+0x([0-9a-f]+)\@plt$/) {
			$name = "$ifunc{hex($r)}\@plt" if defined $ifunc{hex($r)};
			print STDERR "irelative $name\n";
		}
		my $rt = rt(hex($v));
		printf("%x %s\n", $rt, $name) if defined $rt;
	}
} elsif ($cmd eq 'compare') {
	my ($mine, $eu, $symfile, $pid, $mappath, $elf, $dwarffile) = @ARGV;
	layout($pid, $mappath, $elf) if $dwarffile;
	my %alias;	# name -> group key (address)
	if ($symfile) {
		open(my $nm, '-|', 'nm', '--defined-only', $symfile) or die;
		while (<$nm>) {
			my ($v, $t, $name) = /^(\w+) (\w) (\S+)/ or next;
			$name =~ s/\@.*//;
			$alias{$name} = $v;
		}
	}
	our %lines;
	my %a = blocks($mine);
	my %b = blocks($eu);
	my ($n, $ok, $bin, $bad, $badline) = (0, 0, 0, 0, 0);
	sub same {
		my ($x, $y) = @_;
		return 0 unless @$x == @$y;
		for (my $i = 0; $i < @$x; $i++) {
			next if $x->[$i] eq $y->[$i];
			next if defined $alias{$x->[$i]} && defined $alias{$y->[$i]} && $alias{$x->[$i]} eq $alias{$y->[$i]};
			return 0;
		}
		return 1;
	}
	# binutils' addr2line on the same address: names and basename:line lists
	sub a2l {
		my ($addr) = @_;
		my (@z, @zl);
		return ([], []) unless $dwarffile && defined(my $v = vaddr(hex($addr)));
		my $k = 0;
		open(my $h, '-|', 'addr2line', '-f', '-i', '-e', $dwarffile, sprintf('%x', $v)) or die;
		while (<$h>) {
			chomp;
			if ($k++ % 2) { s/ \(discriminator \d+\)//; s/^.*\///; push @zl, $_; } else { push @z, $_; }
		}
		return (\@z, \@zl);
	}
	for my $addr (sort keys %a) {
		$n++;
		my @x = @{$a{$addr}};
		my @y = @{$b{$addr} // []};
		my $lx = join(' <- ', @{$lines{$mine}{$addr}});
		my $ly = join(' <- ', @{$lines{$eu}{$addr} // []});
		my $names_eu = same(\@x, \@y);
		if ($names_eu && $lx eq $ly) { $ok++; next; }
		# eu-addr2line has known quirks with inline chains in dwz'd debug
		# info: ask binutils' addr2line, a second independent reader.
		my ($z, $zl) = a2l($addr);
		my $lz = join(' <- ', @$zl);
		if (same(\@x, $z) && ($lx eq $lz || !$names_eu)) {
			$bin++;
			printf("  %s: pprobe [%s | %s] = addr2line; eu-addr2line [%s | %s]\n", $addr,
			       join(' <- ', @x), $lx, join(' <- ', @y), $ly) if $bin <= 5;
			next;
		}
		if ($names_eu) {
			printf("  LINE %s: pprobe [%s] eu-addr2line [%s] addr2line [%s]\n", $addr, $lx, $ly, $lz) if $badline < 10;
			$badline++;
			$ok++;
			next;
		}
		printf("  MISMATCH %s: pprobe [%s] eu-addr2line [%s] addr2line [%s]\n", $addr, join(' <- ', @x),
		       join(' <- ', @y), join(' <- ', @$z)) if $bad++ < 15;
	}
	print "addresses $n eu-addr2line $ok addr2line-only $bin mismatch $bad line-mismatch $badline\n";
	sub blocks {
		my ($f) = @_;
		my (%r, $cur, $k);
		open(my $h, '<', $f) or die "$f: $!";
		while (<$h>) {
			chomp;
			if (/^0x0*([0-9a-f]+)$/) { $cur = $1; $r{$cur} = []; $lines{$f}{$cur} = []; $k = 0; next; }
			next unless defined $cur;
			if ($k++ % 2) {	# name, file:line, name, file:line...
				s/:(\d+):\d+$/:$1/;	# no column
				s/^.*\///;		# basename: directory spellings differ
				push @{$lines{$f}{$cur}}, $_;
				next;
			}
			s/ inlined at .* in .*$//;
			push @{$r{$cur}}, $_;
		}
		return %r;
	}
}
