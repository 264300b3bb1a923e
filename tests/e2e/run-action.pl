#!/usr/bin/perl
# Runs a composite GitHub Action's steps here, as a runner would, for the action's tests
# (t1410): reads action.yml with a small YAML reader of its own (block mappings and sequences,
# | and > block scalars, quoted and plain scalars: the subset the action keeps to; anything else
# is an error, so the file cannot drift outside what is checked), evaluates the few ${{ }}
# expressions the action uses, and runs each step's `run` with bash as GitHub's composite
# steps do (bash --noprofile --norc -eo pipefail), in its working-directory under
# $GITHUB_WORKSPACE, with its env, and a GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH and
# GITHUB_STEP_SUMMARY file of its own, read back after it as the runner reads them.
#
#   perl run-action.pl [--input NAME=VALUE]... [--outputs FILE] [--summary FILE] ACTION.yml
#   perl run-action.pl --dump ACTION.yml     # the file as JSON (for comparing with PyYAML)
#
# The environment must hold GITHUB_WORKSPACE and RUNNER_TEMP; the rest (GITHUB_EVENT_PATH,
# GITHUB_API_URL, ...) is passed to the steps as it is. Prints "step NAME: exit N" on stderr for
# a step that failed; the exit status is the first failing step's (0 when none failed).
use strict;
use warnings;
use JSON::PP;
use File::Basename qw(dirname);
use Cwd qw(abs_path);

my (%inputs, $outputs_file, $summary_file, $dump);
while (@ARGV && $ARGV[0] =~ /^--/) {
	my $opt = shift;
	if ($opt eq '--input') {
		my ($k, $v) = split /=/, shift, 2;
		$inputs{$k} = $v;
	} elsif ($opt eq '--outputs') {
		$outputs_file = shift;
	} elsif ($opt eq '--summary') {
		$summary_file = shift;
	} elsif ($opt eq '--dump') {
		$dump = 1;
	} else {
		die "run-action.pl: unknown option $opt\n";
	}
}
my $file = shift or die "usage: run-action.pl [--input NAME=VALUE]... ACTION.yml\n";
open my $fh, '<', $file or die "$file: $!\n";
my @lines = <$fh>;
close $fh;
chomp @lines;

# --- the YAML subset ---

my $pos = 0;
sub fail_at { die "$file:" . ($_[0] + 1) . ": $_[1]\n" }
sub indent_of { $_[0] =~ /^( *)/; length $1 }
sub significant { my $l = shift; $l !~ /^\s*(#.*)?$/ }

# Skips blank and comment lines; the next significant line's number, or -1 at the end.
sub next_line {
	$pos++ while $pos < @lines && !significant($lines[$pos]);
	return $pos < @lines ? $pos : -1;
}

sub scalar_value {
	my ($text, $n) = @_;
	if ($text =~ /^"((?:[^"\\]|\\.)*)"\s*(#.*)?$/) {
		my $s = $1;
		$s =~ s/\\(["\\\/nt])/$1 eq 'n' ? "\n" : $1 eq 't' ? "\t" : $1/ge;
		return $s;
	}
	if ($text =~ /^'((?:[^']|'')*)'\s*(#.*)?$/) {
		(my $s = $1) =~ s/''/'/g;
		return $s;
	}
	$text =~ s/\s+#.*$//;
	$text =~ s/\s+$//;
	# a flow sequence of plain scalars: [main, next]
	if ($text =~ /^\[([^\[\]{}"']*)\]$/) {
		return [map { scalar_value($_, $n) } grep { length } split /\s*,\s*/, $1];
	}
	fail_at($n, "a flow collection or an anchor ('$text') is outside the subset")
	    if $text =~ /^[\[\{&*!|>%@`]/;
	fail_at($n, "': ' in a plain scalar ('$text'): quote it") if $text =~ /: /;
	return undef if $text =~ /^(|~|null|Null|NULL)$/;
	return JSON::PP::true if $text =~ /^(true|True|TRUE)$/;
	return JSON::PP::false if $text =~ /^(false|False|FALSE)$/;
	return 0 + $text if $text =~ /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;
	return $text;
}

# A | or > block scalar after a key at indent $parent.
sub block_scalar {
	my ($style, $chomp, $parent) = @_;
	my @body;
	my $ind;
	while ($pos < @lines) {
		my $l = $lines[$pos];
		if ($l =~ /^\s*$/) { push @body, ''; $pos++; next }
		my $i = indent_of($l);
		last if $i <= $parent;
		$ind //= $i;
		fail_at($pos, "a block scalar line less indented than its first") if $i < $ind;
		push @body, substr($l, $ind);
		$pos++;
	}
	pop @body while @body && $body[-1] eq '';
	my $text;
	if ($style eq '|') {
		$text = join("\n", @body);
	} else { # folded: a line break between two plain lines is a space
		$text = '';
		for my $k (0 .. $#body) {
			my $b = $body[$k];
			if ($k == 0) { $text = $b; next }
			my $prev = $body[$k - 1];
			if ($b eq '' || $prev eq '' || $b =~ /^\s/ || $prev =~ /^\s/) { $text .= "\n$b" }
			else { $text .= " $b" }
		}
	}
	$text .= "\n" if $chomp eq '' && @body;
	return $text;
}

sub parse_node {
	my $min = shift;
	my $n = next_line();
	return undef if $n < 0 || indent_of($lines[$n]) < $min;
	my $i = indent_of($lines[$n]);
	return substr($lines[$n], $i) =~ /^-( |$)/ ? parse_seq($i) : parse_map($i);
}

sub parse_map {
	my $ind = shift;
	my %m;
	while ((my $n = next_line()) >= 0) {
		my $l = $lines[$n];
		my $i = indent_of($l);
		last if $i < $ind;
		fail_at($n, "indented more than its mapping") if $i > $ind;
		my $rest = substr($l, $i);
		$rest =~ /^("[^"]*"|'[^']*'|[A-Za-z0-9_.\/-]+):(?:\s+(.*))?$/
		    or fail_at($n, "expected 'key: value', got '$rest'");
		my ($k, $v) = ($1, $2 // '');
		$k =~ s/^["'](.*)["']$/$1/;
		fail_at($n, "key '$k' twice") if exists $m{$k};
		$pos = $n + 1;
		if ($v =~ /^([|>])([-+]?)\s*(#.*)?$/) {
			$m{$k} = block_scalar($1, $2, $i);
		} elsif ($v =~ /^(#.*)?$/) {
			$m{$k} = parse_node($i + 1);
		} else {
			$m{$k} = scalar_value($v, $n);
		}
	}
	return \%m;
}

sub parse_seq {
	my $ind = shift;
	my @s;
	while ((my $n = next_line()) >= 0) {
		my $l = $lines[$n];
		my $i = indent_of($l);
		last if $i < $ind;
		fail_at($n, "indented more than its sequence") if $i > $ind;
		substr($l, $i) =~ /^-( +|$)(.*)$/ or last;
		my $body = $2;
		if ($body =~ /^("[^"]*"|'[^']*'|[A-Za-z0-9_.\/-]+):(\s|$)/) {
			# "- key: value": a mapping whose keys line up after the dash and its space
			fail_at($n, "'-' must be followed by one space") unless substr($l, $i) =~ /^- \S/;
			$lines[$n] = (' ' x ($i + 2)) . $body;
			push @s, parse_map($i + 2);
		} else {
			$pos = $n + 1;
			push @s, scalar_value($body, $n);
		}
	}
	return \@s;
}

my $doc = parse_node(0);
fail_at(next_line(), "unexpected text") if next_line() >= 0;
if ($dump) {
	print JSON::PP->new->canonical->encode($doc), "\n";
	exit 0;
}

# --- the expressions ---

my $action_path = abs_path(dirname($file));
my %steps; # id => {outputs}
ref $doc->{inputs} eq 'HASH' || !defined $doc->{inputs} or die "$file: inputs is not a mapping\n";
my $declared = $doc->{inputs} // {};
for my $k (keys %inputs) {
	die "$file: no input '$k'\n" unless exists $declared->{$k};
}

sub expr {
	my ($e, $where) = @_;
	$e =~ s/^\s+|\s+$//g;
	if ($e =~ /^inputs\.([A-Za-z0-9_-]+)$/) {
		my $name = $1;
		die "$where: no input '$name'\n" unless exists $declared->{$name};
		return $inputs{$name} if exists $inputs{$name};
		die "$where: input '$name' is required\n" if $declared->{$name}{required};
		return evaluate($declared->{$name}{default} // '', "the default of $name");
	}
	return $action_path if $e eq 'github.action_path';
	return $ENV{GITHUB_TOKEN} // '' if $e eq 'github.token';
	if ($e =~ /^steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)$/) {
		return $steps{$1}{$2} // '';
	}
	die "$where: the expression '$e' is not one this runner evaluates\n";
}

sub evaluate {
	my ($v, $where) = @_;
	return '' unless defined $v;
	return $v ? 'true' : 'false' if JSON::PP::is_bool($v);
	$v =~ s/\$\{\{(.*?)\}\}/expr($1, $where)/ge;
	return $v;
}

# --- the steps ---

$doc->{runs}{using} eq 'composite' or die "$file: not a composite action\n";
my $ws = $ENV{GITHUB_WORKSPACE} or die "run-action.pl: GITHUB_WORKSPACE is not set\n";
my $temp = $ENV{RUNNER_TEMP} or die "run-action.pl: RUNNER_TEMP is not set\n";
my $dir = "$temp/_action." . $$;
mkdir $dir or die "$dir: $!\n";
my (%job_env, @job_path);
my ($failed, $k) = (0, 0);

# name=value lines and name<<DELIMITER heredocs, as GITHUB_OUTPUT and GITHUB_ENV hold them
sub read_pairs {
	my $path = shift;
	my %h;
	open my $f, '<', $path or return %h;
	my @l = <$f>;
	chomp @l;
	while (@l) {
		my $line = shift @l;
		next if $line eq '';
		if ($line =~ /^([^=<]+)<<(.+)$/) {
			my ($name, $delim, @v) = ($1, $2);
			while (@l && $l[0] ne $delim) { push @v, shift @l }
			die "run-action.pl: $path: no '$delim' ends $name\n" unless @l;
			shift @l;
			$h{$name} = join "\n", @v;
		} elsif ($line =~ /^([^=]+)=(.*)$/) {
			$h{$1} = $2;
		} else {
			die "run-action.pl: $path: '$line' is neither name=value nor name<<EOF\n";
		}
	}
	return %h;
}

sub slurp { open my $f, '<', $_[0] or return ''; local $/; <$f> }

for my $step (@{$doc->{runs}{steps}}) {
	$k++;
	my $name = $step->{name} // $step->{id} // "step $k";
	my $cond = $step->{if};
	if (defined $cond) {
		die "$file: step '$name': if: '$cond' is not one this runner evaluates\n"
		    unless $cond =~ /^(\$\{\{\s*)?always\(\)(\s*\}\})?$/;
	} elsif ($failed) {
		next;
	}
	die "$file: step '$name': only run steps with shell: bash\n"
	    unless defined $step->{run} && ($step->{shell} // '') eq 'bash';
	my $script = "$dir/step$k.sh";
	open my $s, '>', $script or die;
	print $s $step->{run};
	close $s;
	my %files;
	for my $f (qw(GITHUB_OUTPUT GITHUB_ENV GITHUB_PATH GITHUB_STEP_SUMMARY)) {
		$files{$f} = "$dir/step$k." . lc $f;
		open my $t, '>', $files{$f} or die;
		close $t;
	}
	my %env = (%ENV, %job_env, %files, GITHUB_ACTION_PATH => $action_path);
	$env{PATH} = join ':', @job_path, $ENV{PATH} if @job_path;
	for my $e (sort keys %{$step->{env} // {}}) {
		$env{$e} = evaluate($step->{env}{$e}, "step '$name' env $e");
	}
	my $wd = evaluate($step->{'working-directory'} // '.', "step '$name'");
	$wd = "$ws/$wd" unless $wd =~ m{^/};
	my $pid = fork // die "fork: $!\n";
	if (!$pid) {
		%ENV = %env;
		chdir $wd or die "step '$name': cannot enter '$wd': $!\n";
		exec 'bash', '--noprofile', '--norc', '-eo', 'pipefail', $script;
		die "bash: $!\n";
	}
	waitpid $pid, 0;
	my $rc = $? >> 8 || ($? & 127 ? 128 + ($? & 127) : 0);
	my %out = read_pairs($files{GITHUB_OUTPUT});
	$steps{$step->{id}} = \%out if defined $step->{id};
	%job_env = (%job_env, read_pairs($files{GITHUB_ENV}));
	unshift @job_path, reverse grep { length } split /\n/, slurp($files{GITHUB_PATH});
	if (defined $summary_file) {
		open my $sum, '>>', $summary_file or die "$summary_file: $!\n";
		print $sum slurp($files{GITHUB_STEP_SUMMARY});
		close $sum;
	}
	if ($rc) {
		print STDERR "step $name: exit $rc\n";
		$failed ||= $rc;
	}
}

if (defined $outputs_file) {
	my %o;
	for my $name (keys %{$doc->{outputs} // {}}) {
		$o{$name} = evaluate($doc->{outputs}{$name}{value}, "output $name");
	}
	open my $f, '>', $outputs_file or die "$outputs_file: $!\n";
	print $f JSON::PP->new->canonical->encode(\%o), "\n";
	close $f;
}
system 'rm', '-rf', $dir;
exit $failed;
