#!/bin/sh
# benchline preflight (§4): every check on a simulated machine (a copy of
# fixtures/sysroot/quiet under BENCHLINE_SYSROOT, changed per case), the limits from
# benchline.json, a fake nvidia-smi, exit 0 quiet / 1 noisy / 2 error, and the JSON object
# (§2 preflight). One test on the real machine checks only the shape.
. "$(dirname "$0")/lib.sh"

unset BENCHLINE_SYSROOT BENCHLINE_NVIDIA_SMI

# fresh NAME: a new copy of the quiet fixture root at $TMP/NAME.
fresh() {
	rm -rf "$TMP/$1" && cp -R "$FIXTURES/sysroot/quiet" "$TMP/$1"
}

# set_load ROOT BUSY: the CPU sample says BUSY of 1000 ticks were busy outside preflight
# (preflight's own 5 ticks, from proc/self/stat{,.after}, come on top and are excluded).
set_load() {
	printf 'cpu  100000 500 40000 800000 2000 0 300 0 0 0\n' >"$1/proc/stat" &&
	printf 'cpu  %d 500 40000 %d 2000 0 300 0 0 0\n' \
		$((100000 + $2 + 5)) $((800000 + 1000 - $2 - 5)) >"$1/proc/stat.after"
}

# pf ROOT ARGS...: benchline preflight on the simulated machine ROOT.
pf() {
	root=$1
	shift
	BENCHLINE_SYSROOT="$TMP/$root" bl preflight "$@"
}

# fake_smi NAME BODY: an executable nvidia-smi stand-in at $TMP/NAME.
fake_smi() {
	printf '#!/bin/sh\n%s\n' "$2" >"$TMP/$1" && chmod +x "$TMP/$1"
}

KEYS='join(",", sort keys %$j)'
ALL_KEYS='cpu_load_pct,failures,governor,gpu_load_pct,on_battery,other_benchline,quiet,swap_used_kb,turbo,warnings'

test_expect 'a quiet machine: exit 0, one line per finding' '
	fresh quiet &&
	expect_exit 0 pf quiet >out &&
	cat >expected <<-\EOF &&
	ok   cpu load 2.5% (limit 10%)
	skip gpu load: no nvidia-smi
	ok   no other benchline run
	ok   not on battery power
	ok   cpu governor is '"'"'performance'"'"'
	ok   turbo boost is off
	ok   no swap in use
	EOF
	diff -u expected out
'

test_expect 'a quiet machine: --json is the preflight object with every key' '
	expect_exit 0 pf quiet --json >out.json &&
	test "$(json_get out.json "$KEYS")" = "$ALL_KEYS" &&
	test "$(json_get out.json "\$j->{quiet} ? 1 : 0")" = 1 &&
	test "$(json_get out.json "\$j->{cpu_load_pct}")" = 2.5 &&
	test "$(json_get out.json "\$j->{gpu_load_pct}")" = null &&
	test "$(json_get out.json "\$j->{warnings}")" = "[]" &&
	test "$(json_get out.json "\$j->{failures}")" = "[]" &&
	test "$(json_get out.json "\$j->{other_benchline} ? 1 : 0")" = 0 &&
	test "$(json_get out.json "\$j->{on_battery} ? 1 : 0")" = 0 &&
	test "$(json_get out.json "\$j->{governor}")" = performance &&
	test "$(json_get out.json "\$j->{turbo} ? 1 : 0")" = 0 &&
	test "$(json_get out.json "\$j->{swap_used_kb}")" = 0 &&
	test "$(wc -l <out.json)" = 1
'

test_expect 'a busy cpu (35%): exit 1 naming it' '
	fresh busy && set_load "$TMP/busy" 350 &&
	expect_exit 1 pf busy >out &&
	grep -qx "FAIL cpu load 35% is over the limit of 10%" out &&
	expect_exit 1 pf busy --json >out.json &&
	test "$(json_get out.json "\$j->{quiet} ? 1 : 0")" = 0 &&
	test "$(json_get out.json "\$j->{cpu_load_pct}")" = 35 &&
	test "$(json_get out.json "\$j->{failures}")" = "[\"cpu load 35% is over the limit of 10%\"]"
'

test_expect 'exactly 10% is not over the 10% limit; 10.1% is' '
	fresh edge && set_load "$TMP/edge" 100 &&
	expect_exit 0 pf edge >out &&
	grep -qx "ok   cpu load 10% (limit 10%)" out &&
	set_load "$TMP/edge" 101 &&
	expect_exit 1 pf edge >out &&
	grep -qx "FAIL cpu load 10.1% is over the limit of 10%" out
'

test_expect 'benchline.json quiet.cpu_load_pct moves the limit' '
	mkdir -p cfg && echo "{\"quiet\": {\"cpu_load_pct\": 40}}" >cfg/benchline.json &&
	expect_exit 0 pf busy --repo cfg >out &&
	grep -qx "ok   cpu load 35% (limit 40%)" out &&
	echo "{\"quiet\": {\"cpu_load_pct\": 34.5}}" >cfg/benchline.json &&
	expect_exit 1 pf busy --repo cfg >out &&
	grep -qx "FAIL cpu load 35% is over the limit of 34.5%" out
'

test_expect 'on battery power: exit 1' '
	fresh battery &&
	echo 0 >battery/sys/class/power_supply/AC/online &&
	echo Discharging >battery/sys/class/power_supply/BAT0/status &&
	expect_exit 1 pf battery >out &&
	grep -qx "FAIL on battery power ('"'"'BAT0'"'"')" out &&
	expect_exit 1 pf battery --json >out.json &&
	test "$(json_get out.json "\$j->{on_battery} ? 1 : 0")" = 1
'

test_expect 'unplugged with the battery not yet discharging: still on battery' '
	fresh unplugged &&
	echo 0 >unplugged/sys/class/power_supply/AC/online &&
	expect_exit 1 pf unplugged >out &&
	grep -qx "FAIL on battery power ('"'"'BAT0'"'"')" out
'

test_expect 'another benchline run in /proc: exit 1 naming its pid and command' '
	fresh other && mkdir other/proc/999 &&
	printf "benchline\0--db\0nightly.db\0run\0--\0./bench\0" >other/proc/999/cmdline &&
	echo benchline >other/proc/999/comm &&
	expect_exit 1 pf other >out &&
	grep -qx "FAIL another benchline run is running (pid 999: '"'"'benchline --db nightly.db run -- ./bench'"'"')" out &&
	expect_exit 1 pf other --json >out.json &&
	test "$(json_get out.json "\$j->{other_benchline} ? 1 : 0")" = 1
'

test_expect 'benchline that is not a run, and our own ancestors, do not count' '
	fresh ancestors &&
	printf "benchline\0run\0--\0sh\0-c\0benchline preflight\0" >ancestors/proc/4241/cmdline &&
	mkdir ancestors/proc/998 &&
	printf "/usr/local/bin/benchline\0serve\0--port\0run\0" >ancestors/proc/998/cmdline &&
	expect_exit 0 pf ancestors >out &&
	grep -qx "ok   no other benchline run" out
'

test_expect 'a configured benchmark process (quiet.processes): exit 1 naming it' '
	fresh procs &&
	echo "{\"quiet\": {\"processes\": [\"blender\", \"cargo\"]}}" >cfg/benchline.json &&
	expect_exit 0 pf procs --repo cfg >out &&
	grep -qx "ok   no configured benchmark process is running" out &&
	mkdir procs/proc/555 && echo blender >procs/proc/555/comm &&
	printf "blender\0-b\0scene.blend\0" >procs/proc/555/cmdline &&
	expect_exit 1 pf procs --repo cfg >out &&
	grep -qx "FAIL configured benchmark process '"'"'blender'"'"' is running (pid 555)" out &&
	expect_exit 1 pf procs --repo cfg --json >out.json &&
	test "$(json_get out.json "\$j->{other_benchline} ? 1 : 0")" = 0 &&
	test "$(json_get out.json "scalar @{\$j->{failures}}")" = 1
'

test_expect 'nvidia-smi printing 35: exit 1; printing 5: passes' '
	fake_smi smi35 "echo 35" && fake_smi smi5 "echo 5" &&
	BENCHLINE_NVIDIA_SMI="$TMP/smi35" expect_exit 1 pf quiet >out &&
	grep -qx "FAIL gpu load 35% is over the limit of 10%" out &&
	BENCHLINE_NVIDIA_SMI="$TMP/smi35" expect_exit 1 pf quiet --json >out.json &&
	test "$(json_get out.json "\$j->{gpu_load_pct}")" = 35 &&
	BENCHLINE_NVIDIA_SMI="$TMP/smi5" expect_exit 0 pf quiet >out &&
	grep -qx "ok   gpu load 5% (limit 10%)" out &&
	echo "{\"quiet\": {\"gpu_load_pct\": 40}}" >cfg/benchline.json &&
	BENCHLINE_NVIDIA_SMI="$TMP/smi35" expect_exit 0 pf quiet --repo cfg >out &&
	grep -qx "ok   gpu load 35% (limit 40%)" out
'

test_expect 'the busiest of several GPUs counts' '
	fake_smi smimulti "printf \"3\\n12\\n[N/A]\\n\"" &&
	BENCHLINE_NVIDIA_SMI="$TMP/smimulti" expect_exit 1 pf quiet >out &&
	grep -qx "FAIL gpu load 12% is over the limit of 10%" out
'

test_expect 'no nvidia-smi: skipped, and said so' '
	BENCHLINE_NVIDIA_SMI="$TMP/no-such-smi" expect_exit 0 pf quiet >out &&
	grep -qx "skip gpu load: no nvidia-smi at '"'"'$TMP/no-such-smi'"'"'" out &&
	BENCHLINE_NVIDIA_SMI="$TMP/no-such-smi" expect_exit 0 pf quiet --json >out.json &&
	test "$(json_get out.json "\$j->{gpu_load_pct}")" = null &&
	test "$(json_get out.json "\$j->{warnings}")" = "[]"
'

test_expect 'a failing nvidia-smi is a warning, not a failure' '
	fake_smi smibad "echo \"No devices were found\"; exit 6" &&
	BENCHLINE_NVIDIA_SMI="$TMP/smibad" expect_exit 0 pf quiet >out &&
	grep -qx "warn gpu load unknown: '"'"'$TMP/smibad'"'"' exited with status 6" out
'

test_expect 'governor powersave, turbo on, swap used: warnings, exit 0' '
	fresh warn &&
	for c in warn/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor; do
		echo powersave >"$c" || return 1
	done &&
	echo 0 >warn/sys/devices/system/cpu/intel_pstate/no_turbo &&
	sed -i "s/^SwapFree: .*/SwapFree:        2096124 kB/" warn/proc/meminfo &&
	expect_exit 0 pf warn >out &&
	grep -qx "warn cpu governor is '"'"'powersave'"'"', not '"'"'performance'"'"'" out &&
	grep -qx "warn turbo boost is on (intel_pstate/no_turbo is 0)" out &&
	grep -qx "warn swap in use: 1024 kB" out &&
	expect_exit 0 pf warn --json >out.json &&
	test "$(json_get out.json "\$j->{quiet} ? 1 : 0")" = 1 &&
	test "$(json_get out.json "scalar @{\$j->{warnings}}")" = 3 &&
	test "$(json_get out.json "\$j->{governor}")" = powersave &&
	test "$(json_get out.json "\$j->{turbo} ? 1 : 0")" = 1 &&
	test "$(json_get out.json "\$j->{swap_used_kb}")" = 1024
'

test_expect 'cpufreq/boost, and a governor on some cpus only' '
	fresh boost &&
	rm -r boost/sys/devices/system/cpu/intel_pstate &&
	mkdir -p boost/sys/devices/system/cpu/cpufreq && echo 1 >boost/sys/devices/system/cpu/cpufreq/boost &&
	echo schedutil >boost/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor &&
	expect_exit 0 pf boost >out &&
	grep -qx "warn turbo boost is on (cpufreq/boost is 1)" out &&
	grep -qx "warn cpu governor is '"'"'schedutil'"'"' on 1 of 2 cpus, not '"'"'performance'"'"'" out
'

test_expect 'no cpufreq, no turbo control, no swap lines: skipped, null in JSON' '
	fresh bare &&
	rm -r bare/sys/devices bare/sys/class/power_supply &&
	sed -i "/^Swap/d" bare/proc/meminfo &&
	expect_exit 0 pf bare >out &&
	grep -qx "skip cpu governor: no cpufreq" out &&
	grep -qx "skip turbo boost: no intel_pstate/no_turbo or cpufreq/boost" out &&
	grep -qx "skip swap: no SwapTotal in /proc/meminfo" out &&
	grep -qx "ok   not on battery power" out &&
	expect_exit 0 pf bare --json >out.json &&
	test "$(json_get out.json "$KEYS")" = "$ALL_KEYS" &&
	test "$(json_get out.json "\$j->{governor}")" = null &&
	test "$(json_get out.json "\$j->{turbo}")" = null &&
	test "$(json_get out.json "\$j->{swap_used_kb}")" = null
'

test_expect 'several failures: each is named, exit 1' '
	fresh many && set_load "$TMP/many" 500 &&
	echo Discharging >many/sys/class/power_supply/BAT0/status &&
	expect_exit 1 pf many --json >out.json &&
	test "$(json_get out.json "scalar @{\$j->{failures}}")" = 2
'

test_expect 'errors exit 2: unreadable readings, bad flags, bad benchline.json, bad --repo' '
	fresh broken && rm broken/proc/stat.after &&
	expect_exit 2 pf broken 2>err >out &&
	grep -q "^benchline: cannot read .*broken/proc/stat.after.: No such file" err &&
	test ! -s out &&
	printf "garbage\n" >broken/proc/stat.after &&
	expect_exit 2 pf broken 2>err &&
	grep -q "cannot parse .*proc/stat.after" err &&
	expect_exit 2 pf quiet --bogus 2>err &&
	grep -q "unknown option" err &&
	expect_exit 2 pf quiet extra 2>err &&
	grep -q "preflight takes no arguments" err &&
	echo "{\"quiet\": {\"processes\": \"blender\"}}" >cfg/benchline.json &&
	expect_exit 2 pf quiet --repo cfg 2>err &&
	grep -q "cfg/benchline.json: quiet.processes: expected an array of strings" err &&
	expect_exit 2 pf quiet --repo no-such-dir 2>err &&
	grep -q "cannot open repository .no-such-dir." err
'

test_expect 'the real machine: the JSON shape, and exit 0 or 1, never 2' '
	mkdir -p real &&
	bl preflight --repo real --json >out.json; status=$? &&
	{ test $status = 0 || test $status = 1; } &&
	test "$(json_get out.json "$KEYS")" = "$ALL_KEYS" &&
	json_get out.json "
		die q(quiet) unless JSON::PP::is_bool(\$j->{quiet});
		die q(other_benchline) unless JSON::PP::is_bool(\$j->{other_benchline});
		die q(on_battery) unless JSON::PP::is_bool(\$j->{on_battery});
		die q(cpu) unless \$j->{cpu_load_pct} =~ /^[0-9.]+\$/ && \$j->{cpu_load_pct} <= 100;
		die q(warnings) unless ref \$j->{warnings} eq q(ARRAY);
		die q(failures) unless ref \$j->{failures} eq q(ARRAY);
		die q(quiet vs failures) unless (\$j->{quiet} ? 1 : 0) == (@{\$j->{failures}} ? 0 : 1);
		die q(exit) unless (\$j->{quiet} ? 0 : 1) == $status;
		1" >/dev/null
'

test_done
