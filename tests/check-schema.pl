#!/usr/bin/perl
# check-schema.pl SCHEMA [--lines] FILE...: validates each FILE (with --lines, each non-blank
# line of each FILE) against the JSON Schema SCHEMA, and prints one line per violation
# (FILE[:LINE]: POINTER: what is wrong). Exit 0 when every instance is valid, 1 otherwise.
#
# Only the part of JSON Schema (2020-12) that docs/schemas/ uses: type, const, enum, minimum,
# maximum, exclusiveMinimum, minLength, maxLength, pattern, items, minItems, maxItems,
# uniqueItems, properties, required, additionalProperties, minProperties, propertyNames,
# allOf, anyOf, oneOf, if/then/else and $ref to "#/$defs/NAME". A keyword it does not know is
# an error, so a schema cannot quietly ask for more than is checked.
use strict;
use warnings;
use JSON::PP;

my %known = map { $_ => 1 } qw($schema $id title description $defs type const enum minimum
	maximum exclusiveMinimum minLength maxLength pattern items minItems maxItems uniqueItems
	properties required additionalProperties minProperties propertyNames allOf anyOf oneOf if
	then else $ref);

my $schema_file = shift @ARGV or die "usage: check-schema.pl SCHEMA [--lines] FILE...\n";
my $lines = 0;
if (@ARGV && $ARGV[0] eq '--lines') { $lines = 1; shift @ARGV }
my $json = JSON::PP->new->utf8->allow_nonref;

sub slurp {
	my ($f) = @_;
	open my $fh, '<', $f or die "$f: $!\n";
	local $/;
	return <$fh>;
}

my $root = $json->decode(slurp($schema_file));

sub type_of {
	my ($v) = @_;
	return 'null' unless defined $v;
	return 'object' if ref $v eq 'HASH';
	return 'array' if ref $v eq 'ARRAY';
	return 'boolean' if JSON::PP::is_bool($v);
	# JSON::PP decodes numbers to Perl numbers; a string stays a string
	my $flags = B::svref_2object(\$v)->FLAGS;
	return ($flags & (B::SVp_IOK() | B::SVp_NOK())) && !($flags & B::SVp_POK())
	    ? ($v == int($v) ? 'integer' : 'number')
	    : 'string';
}

sub is_type {
	my ($v, $want) = @_;
	my $t = type_of($v);
	return 1 if $t eq $want;
	return 1 if $want eq 'number' && $t eq 'integer';
	return 0;
}

sub equal {
	my ($a, $b) = @_;
	my $c = JSON::PP->new->canonical->allow_nonref;
	return $c->encode($a) eq $c->encode($b);
}

sub resolve {
	my ($ref) = @_;
	$ref =~ m{^#/\$defs/(.+)$} or die "$schema_file: unsupported \$ref '$ref'\n";
	return $root->{'$defs'}{$1} // die "$schema_file: no \$defs/$1\n";
}

# validate(VALUE, SCHEMA, POINTER): the violations, as "POINTER: message" strings.
sub validate {
	my ($v, $s, $at) = @_;
	my @err;
	return () if JSON::PP::is_bool($s) && $s;
	return ("$at: nothing is allowed here") if JSON::PP::is_bool($s);
	for my $k (keys %$s) {
		die "$schema_file: unsupported keyword '$k'\n" unless $known{$k};
	}
	return validate($v, resolve($s->{'$ref'}), $at) if exists $s->{'$ref'};
	if (exists $s->{type}) {
		my @types = ref $s->{type} ? @{$s->{type}} : ($s->{type});
		return ("$at: expected " . join(' or ', @types) . ', not ' . type_of($v))
		    unless grep { is_type($v, $_) } @types;
	}
	push @err, "$at: expected " . encode_json_value($s->{const})
	    if exists $s->{const} && !equal($v, $s->{const});
	push @err, "$at: not one of " . encode_json_value($s->{enum})
	    if exists $s->{enum} && !grep { equal($v, $_) } @{$s->{enum}};
	my $t = type_of($v);
	if ($t eq 'integer' || $t eq 'number') {
		push @err, "$at: $v is under $s->{minimum}"
		    if exists $s->{minimum} && $v < $s->{minimum};
		push @err, "$at: $v is over $s->{maximum}"
		    if exists $s->{maximum} && $v > $s->{maximum};
		push @err, "$at: $v is not over $s->{exclusiveMinimum}"
		    if exists $s->{exclusiveMinimum} && $v <= $s->{exclusiveMinimum};
	}
	if ($t eq 'string') {
		my $n = length $v;
		push @err, "$at: shorter than $s->{minLength}"
		    if exists $s->{minLength} && $n < $s->{minLength};
		push @err, "$at: longer than $s->{maxLength}"
		    if exists $s->{maxLength} && $n > $s->{maxLength};
		push @err, "$at: '$v' does not match $s->{pattern}"
		    if exists $s->{pattern} && $v !~ /$s->{pattern}/;
	}
	if ($t eq 'array') {
		push @err, "$at: fewer than $s->{minItems} items"
		    if exists $s->{minItems} && @$v < $s->{minItems};
		push @err, "$at: more than $s->{maxItems} items"
		    if exists $s->{maxItems} && @$v > $s->{maxItems};
		if ($s->{uniqueItems}) {
			my %seen;
			for (@$v) {
				my $key = JSON::PP->new->canonical->allow_nonref->encode($_);
				push @err, "$at: $key is there twice" if $seen{$key}++;
			}
		}
		if (exists $s->{items}) {
			push @err, validate($v->[$_], $s->{items}, "$at/$_") for 0 .. $#$v;
		}
	}
	if ($t eq 'object') {
		for my $r (@{$s->{required} // []}) {
			push @err, "$at: missing '$r'" unless exists $v->{$r};
		}
		push @err, "$at: fewer than $s->{minProperties} members"
		    if exists $s->{minProperties} && keys %$v < $s->{minProperties};
		my $props = $s->{properties} // {};
		for my $k (sort keys %$v) {
			push @err, validate($k, $s->{propertyNames}, "$at/$k (the name)")
			    if exists $s->{propertyNames};
			if (exists $props->{$k}) {
				push @err, validate($v->{$k}, $props->{$k}, "$at/$k");
			} elsif (exists $s->{additionalProperties}) {
				my $ap = $s->{additionalProperties};
				if (JSON::PP::is_bool($ap) && !$ap) {
					push @err, "$at: unknown key '$k'";
				} else {
					push @err, validate($v->{$k}, $ap, "$at/$k");
				}
			}
		}
	}
	push @err, validate($v, $_, $at) for @{$s->{allOf} // []};
	if (exists $s->{anyOf}) {
		my @fails = map { [validate($v, $_, $at)] } @{$s->{anyOf}};
		push @err, "$at: matches none of anyOf (" . join('; ', map { @$_ } @fails) . ')'
		    unless grep { !@$_ } @fails;
	}
	if (exists $s->{oneOf}) {
		my @fails = map { [validate($v, $_, $at)] } @{$s->{oneOf}};
		my $ok = grep { !@$_ } @fails;
		push @err, "$at: matches none of oneOf (" . join('; ', map { @$_ } @fails) . ')'
		    if $ok == 0;
		push @err, "$at: matches $ok of oneOf" if $ok > 1;
	}
	if (exists $s->{if}) {
		my $branch = validate($v, $s->{if}, $at) ? $s->{else} : $s->{then};
		push @err, validate($v, $branch, $at) if defined $branch;
	}
	return @err;
}

sub encode_json_value { JSON::PP->new->canonical->allow_nonref->encode($_[0]) }

require B;
my $bad = 0;
for my $file (@ARGV) {
	my @instances;
	if ($lines) {
		my $n = 0;
		for my $line (split /\n/, slurp($file)) {
			$n++;
			push @instances, ["$file:$n", $line] if $line =~ /\S/;
		}
	} else {
		@instances = ([$file, slurp($file)]);
	}
	for my $i (@instances) {
		my ($name, $text) = @$i;
		my $v = eval { $json->decode($text) };
		if (!defined $v && $@) {
			print "$name: not JSON: $@";
			$bad++;
			next;
		}
		my @err = validate($v, $root, '');
		print "$name: $_\n" for @err;
		$bad++ if @err;
	}
}
exit($bad ? 1 : 0);
