#!/usr/bin/perl
# Compares benchline's PostgreSQL schema with its SQLite schema, both fully migrated, so that
# sql/pg/00N-*.sql cannot drift from sql/00N-*.sql unnoticed.
#
#   schema-equal.pl [--apply] [--list] URL SQLITE_DB
#
# URL is a PostgreSQL database holding the schema (with --apply, an empty one: the script
# applies sql/pg/0*.sql to it first, each file in one transaction, as the C code does);
# SQLITE_DB a file `benchline --db FILE init` made. Compared, table by table and view by view:
#   - that every table and view is in both, as the same kind;
#   - column names in the same order; for tables each column's type as the dialect rules map
#     it (INTEGER -> bigint, REAL -> double precision, TEXT -> text COLLATE "C", BLOB ->
#     bytea), nullability (a primary key column that SQLite cannot store NULL in counts as
#     NOT NULL) and default; an AUTOINCREMENT key is an identity column, and an identity
#     column is SQLite's INTEGER PRIMARY KEY;
#   - primary keys, UNIQUE constraints and foreign keys (columns, the table and columns they
#     reference, ON DELETE);
#   - CHECK constraints, by the string constants each names (the two dialects print the same
#     rule differently: `IN (...)`, `= ANY (ARRAY[...])`, a chain of ORs);
#   - indexes made by CREATE INDEX: the same names on the same tables with the same columns,
#     the same uniqueness and the same predicate when partial (SQLite's bare flag `WHERE x`
#     is PostgreSQL's `x <> 0`);
#   - triggers: the same names on the same tables, firing at the same time on the same events
#     (UPDATE OF the same columns).
# Prints every difference and exits 1 if there is one, else prints "schemas equal" and exits
# 0; --list prints every fact compared, the equal ones too ("= KEY: VALUE").
# Needs psql and sqlite3 on PATH.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use TwinDb qw(pg_rows lite_rows pg_apply);

my ($apply, $list) = (0, 0);
while (@ARGV && $ARGV[0] =~ /^--/) {
	my $opt = shift @ARGV;
	if ($opt eq '--apply') {
		$apply = 1;
	} elsif ($opt eq '--list') {
		$list = 1;
	} else {
		die "schema-equal: unknown option '$opt'\n";
	}
}
@ARGV == 2 or die "usage: schema-equal.pl [--apply] [--list] URL SQLITE_DB\n";
my ($url, $dbfile) = @ARGV;
-f $dbfile or die "schema-equal: no SQLite database at '$dbfile'\n";

sub pg { return pg_rows($url, $_[0]) }
sub lite { return lite_rows($dbfile, $_[0]) }

pg_apply($url) if $apply;

# The facts of one schema, each under a key: "kind T", "columns T", "column T.C", "pk T",
# "unique T", "fk T", "check T", "index I", "trigger T.N". Compared key by key.
my (%lite, %pg);

# SQL text without its -- comments (SQLite keeps them in sqlite_master.sql).
sub uncomment {
	my ($s) = @_;
	$s =~ s/--[^\n]*//g;
	return $s;
}

# The string constants of a CHECK expression, sorted: the rule's identity across dialects.
sub check_key {
	my ($expr) = @_;
	my @lit;
	while ($expr =~ /'((?:[^']|'')*)'/g) {
		push @lit, $1;
	}
	return join(',', sort @lit);
}

# A partial index's predicate, spelled one way for both: no outer parentheses, lower case,
# a bare column (SQLite's flag test) as `column <> 0`.
sub predicate {
	my ($p) = @_;
	return '' unless defined $p && length $p;
	$p = lc $p;
	$p =~ s/\s+/ /g;
	$p =~ s/^\s+|\s+$//g;
	$p =~ s/^\((.*)\)$/$1/ while $p =~ /^\(.*\)$/;
	$p = "$p <> 0" if $p =~ /^\w+$/;
	return $p;
}

# A trigger's timing and events, spelled one way for both: "AFTER UPDATE OF a, b ROW".
sub trigger_events {
	my ($timing, $events, $level) = @_;
	$events = uc $events;
	$events =~ s/\s+/ /g;
	$events =~ s/^\s+|\s+$//g;
	$events =~ s/ OF (.*)$/' OF ' . join(', ', map { lc } split m{\s*,\s*}, $1)/e;
	return uc($timing) . " $events $level";
}

# --- SQLite ---------------------------------------------------------------------------------
my %lite_sql; # table name -> its CREATE statement
for my $r (lite(q{SELECT name, type, sql FROM sqlite_master
		  WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\_%' ESCAPE '\'})) {
	my ($name, $type, $sql) = @$r;
	$lite{"kind $name"} = $type;
	$lite_sql{$name} = $sql;
}
my %lite_map = (INTEGER => 'bigint', REAL => 'double precision', TEXT => 'text collate C',
		BLOB => 'bytea');
my (%lite_cols, %lite_pk, %lite_npk);
my @lite_cols = lite(q{SELECT m.name, p.cid, p.name, p.type, p."notnull",
			      coalesce(p.dflt_value, ''), p.pk
		       FROM sqlite_master m, pragma_table_info(m.name) p
		       WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite\_%' ESCAPE '\'
		       ORDER BY m.name, p.cid});
$lite_npk{$_->[0]} += $_->[6] ? 1 : 0 for @lite_cols;
for my $r (@lite_cols) {
	my ($t, $cid, $col, $type, $notnull, $dflt, $pk) = @$r;
	push @{$lite_cols{$t}}, $col;
	next if $lite{"kind $t"} eq 'view';
	my $sql = uncomment($lite_sql{$t});
	my $wr = $sql =~ /\bWITHOUT\s+ROWID\b/i;
	# A rowid table's one-column INTEGER primary key is its rowid.
	my $rowid_alias = $pk && !$wr && $lite_npk{$t} == 1 && uc($type) eq 'INTEGER';
	$lite_pk{$t}[$pk - 1] = $col if $pk;
	# SQLite stores no NULL in a WITHOUT ROWID table's key or in a rowid alias (NULL there
	# means "the next id"); any other primary key column takes NULL unless declared NOT NULL.
	my $nn = ($notnull || ($pk && ($wr || $rowid_alias))) ? 'not null' : 'null';
	my $mapped = $lite_map{uc $type} // "unmapped type '$type'";
	my $ident = $rowid_alias ? ($sql =~ /\bAUTOINCREMENT\b/i ? ' identity' : ' identity?') : '';
	$lite{"column $t.$col"} = "$mapped $nn" . ($dflt ne '' ? " default $dflt" : '') . $ident;
}
$lite{"columns $_"} = join(', ', @{$lite_cols{$_}}) for keys %lite_cols;
$lite{"pk $_"} = join(', ', @{$lite_pk{$_}}) for keys %lite_pk;

my (%lite_index, %lite_index_cols);
for my $r (lite(q{SELECT m.name, il.name, il."unique", il.origin, il.partial
		  FROM sqlite_master m, pragma_index_list(m.name) il
		  WHERE m.type = 'table'})) {
	my ($t, $i, $unique, $origin, $partial) = @$r;
	$lite_index{$i} = [$t, $unique, $origin, $partial];
}
for my $i (keys %lite_index) {
	my @c = map { $_->[1] }
	    lite("SELECT seqno, name FROM pragma_index_info('$i') ORDER BY seqno");
	$lite_index_cols{$i} = join(', ', @c);
}
my %lite_unique;
for my $i (sort keys %lite_index) {
	my ($t, $unique, $origin, $partial) = @{$lite_index{$i}};
	if ($origin eq 'u') {
		push @{$lite_unique{$t}}, "($lite_index_cols{$i})";
	} elsif ($origin eq 'c') {
		my ($sql) = map { $_->[0] } lite("SELECT sql FROM sqlite_master WHERE name = '$i'");
		my $where = $partial && uncomment($sql) =~ /\bWHERE\b(.*)$/is ? $1 : '';
		$lite{"index $i"} = "on $t ($lite_index_cols{$i})" . ($unique ? ' unique' : '') .
		    ($partial ? ' where ' . predicate($where) : '');
	}
}
$lite{"unique $_"} = join(' ', sort @{$lite_unique{$_}}) for keys %lite_unique;

my %lite_fk;
for my $r (lite(q{SELECT m.name, f.id, f.seq, f."table", f."from", coalesce(f."to", ''),
			 f.on_delete
		  FROM sqlite_master m, pragma_foreign_key_list(m.name) f
		  WHERE m.type = 'table' ORDER BY m.name, f.id, f.seq})) {
	my ($t, $id, $seq, $ft, $from, $to, $del) = @$r;
	my $fk = $lite_fk{$t}{$id} //= {from => [], to => [], table => $ft, del => uc $del};
	push @{$fk->{from}}, $from;
	push @{$fk->{to}}, $to;
}
for my $t (keys %lite_fk) {
	my @fks = map { my $f = $lite_fk{$t}{$_};
			"(" . join(', ', @{$f->{from}}) . ") -> $f->{table} (" .
			    join(', ', @{$f->{to}}) . ") on delete $f->{del}" }
	    keys %{$lite_fk{$t}};
	$lite{"fk $t"} = join('; ', sort @fks);
}

for my $t (keys %lite_sql) {
	next if $lite{"kind $t"} ne 'table';
	my $sql = uncomment($lite_sql{$t});
	my @checks;
	while ($sql =~ /\bCHECK\s*\(/gi) {
		my ($depth, $start, $i) = (1, pos($sql), pos($sql));
		while ($depth && $i < length $sql) {
			my $ch = substr($sql, $i++, 1);
			if ($ch eq "'") {
				while ($i < length $sql) {
					last if substr($sql, $i++, 1) eq "'";
				}
			} elsif ($ch eq '(') {
				$depth++;
			} elsif ($ch eq ')') {
				$depth--;
			}
		}
		push @checks, '[' . check_key(substr($sql, $start, $i - $start - 1)) . ']';
	}
	$lite{"check $t"} = join(' ', sort @checks) if @checks;
}

for my $r (lite(q{SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger'})) {
	my ($n, $t, $sql) = @$r;
	$sql = uncomment($sql);
	if ($sql =~ /^\s*CREATE\s+(?:TEMP\w*\s+)?TRIGGER\s+(?:IF\s+NOT\s+EXISTS\s+)?\S+\s+
		     (BEFORE|AFTER|INSTEAD\s+OF)?\s*
		     (DELETE|INSERT|UPDATE(?:\s+OF\s+\w+(?:\s*,\s*\w+)*)?)\s+ON\s/isx) {
		$lite{"trigger $t.$n"} = trigger_events($1 // 'BEFORE', $2, 'ROW');
	} else {
		$lite{"trigger $t.$n"} = "unparsed: $sql";
	}
}

# --- PostgreSQL -----------------------------------------------------------------------------
# benchline_schema is store/pg.c's own: the schema version, as SQLite's PRAGMA user_version.
my $ns = "n.nspname = current_schema() AND c.relname <> 'benchline_schema'";
for my $r (pg(qq{SELECT c.relname, c.relkind FROM pg_class c
		 JOIN pg_namespace n ON n.oid = c.relnamespace
		 WHERE $ns AND c.relkind IN ('r', 'p', 'v')})) {
	my ($name, $kind) = @$r;
	$pg{"kind $name"} = $kind eq 'v' ? 'view' : 'table';
}
my %pg_cols;
for my $r (pg(qq{SELECT c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod),
			coalesce(co.collname, ''), a.attnotnull,
			coalesce(pg_get_expr(d.adbin, d.adrelid), ''), a.attidentity <> ''
		 FROM pg_attribute a
		 JOIN pg_class c ON c.oid = a.attrelid
		 JOIN pg_namespace n ON n.oid = c.relnamespace
		 LEFT JOIN pg_collation co ON co.oid = a.attcollation
		 LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		 WHERE $ns AND c.relkind IN ('r', 'p', 'v') AND a.attnum > 0 AND NOT a.attisdropped
		 ORDER BY c.relname, a.attnum})) {
	my ($t, $num, $col, $type, $coll, $notnull, $dflt, $ident) = @$r;
	push @{$pg_cols{$t}}, $col;
	next if $pg{"kind $t"} eq 'view';
	$type .= " collate $coll" if $coll ne '' && $coll ne 'default';
	$dflt =~ s/::[a-z ]+$//; # 'open'::text -> 'open'
	$pg{"column $t.$col"} = $type . ($notnull eq 't' ? ' not null' : ' null') .
	    ($dflt ne '' ? " default $dflt" : '') . ($ident eq 't' ? ' identity' : '');
}
$pg{"columns $_"} = join(', ', @{$pg_cols{$_}}) for keys %pg_cols;

my (%pg_unique, %pg_fk, %pg_check);
for my $r (pg(qq{SELECT c.relname, con.contype,
			coalesce((SELECT string_agg(a.attname, ', ' ORDER BY k.ord)
				  FROM unnest(con.conkey) WITH ORDINALITY k (attnum, ord)
				  JOIN pg_attribute a ON a.attrelid = con.conrelid
						     AND a.attnum = k.attnum), ''),
			coalesce(fc.relname, ''),
			coalesce((SELECT string_agg(a.attname, ', ' ORDER BY k.ord)
				  FROM unnest(con.confkey) WITH ORDINALITY k (attnum, ord)
				  JOIN pg_attribute a ON a.attrelid = con.confrelid
						     AND a.attnum = k.attnum), ''),
			con.confdeltype, pg_get_constraintdef(con.oid)
		 FROM pg_constraint con
		 JOIN pg_class c ON c.oid = con.conrelid
		 JOIN pg_namespace n ON n.oid = c.relnamespace
		 LEFT JOIN pg_class fc ON fc.oid = con.confrelid
		 WHERE $ns AND con.contype IN ('p', 'u', 'f', 'c')})) {
	my ($t, $type, $cols, $ft, $fcols, $del, $def) = @$r;
	if ($type eq 'p') {
		$pg{"pk $t"} = $cols;
	} elsif ($type eq 'u') {
		push @{$pg_unique{$t}}, "($cols)";
	} elsif ($type eq 'f') {
		my %action = (a => 'NO ACTION', r => 'RESTRICT', c => 'CASCADE', n => 'SET NULL',
			      d => 'SET DEFAULT');
		push @{$pg_fk{$t}}, "($cols) -> $ft ($fcols) on delete $action{$del}";
	} else {
		push @{$pg_check{$t}}, '[' . check_key($def) . ']';
	}
}
$pg{"unique $_"} = join(' ', sort @{$pg_unique{$_}}) for keys %pg_unique;
$pg{"fk $_"} = join('; ', sort @{$pg_fk{$_}}) for keys %pg_fk;
$pg{"check $_"} = join(' ', sort @{$pg_check{$_}}) for keys %pg_check;

# Indexes of their own: not the ones PostgreSQL makes for a PRIMARY KEY or UNIQUE constraint
# (SQLite's sqlite_autoindex_*, compared above as keys).
for my $r (pg(qq{SELECT c.relname, i.relname, x.indisunique,
			coalesce(pg_get_expr(x.indpred, x.indrelid), ''),
			(SELECT string_agg(pg_get_indexdef(x.indexrelid, k, true), ', ' ORDER BY k)
			 FROM generate_series(1, x.indnkeyatts) k)
		 FROM pg_index x
		 JOIN pg_class i ON i.oid = x.indexrelid
		 JOIN pg_class c ON c.oid = x.indrelid
		 JOIN pg_namespace n ON n.oid = c.relnamespace
		 WHERE $ns AND NOT EXISTS (SELECT 1 FROM pg_constraint con
					   WHERE con.conindid = x.indexrelid
					     AND con.conrelid = x.indrelid
					     AND con.contype IN ('p', 'u', 'x'))})) {
	my ($t, $i, $unique, $pred, $cols) = @$r;
	$pg{"index $i"} = "on $t ($cols)" . ($unique eq 't' ? ' unique' : '') .
	    ($pred ne '' ? ' where ' . predicate($pred) : '');
}

for my $r (pg(qq{SELECT c.relname, t.tgname, pg_get_triggerdef(t.oid)
		 FROM pg_trigger t
		 JOIN pg_class c ON c.oid = t.tgrelid
		 JOIN pg_namespace n ON n.oid = c.relnamespace
		 WHERE $ns AND NOT t.tgisinternal})) {
	my ($t, $n, $def) = @$r;
	if ($def =~ /^CREATE\s(?:CONSTRAINT\s)?TRIGGER\s\S+\s(BEFORE|AFTER|INSTEAD\sOF)\s(.*?)
		     \sON\s\S+\s(?:.*?\s)?FOR\sEACH\s(ROW|STATEMENT)\b/sx) {
		$pg{"trigger $t.$n"} = trigger_events($1, $2, $3);
	} else {
		$pg{"trigger $t.$n"} = "unparsed: $def";
	}
}

# --- Compare --------------------------------------------------------------------------------
# An INTEGER PRIMARY KEY without AUTOINCREMENT ("identity?") may be an identity column or a
# plain bigint key: a key the code always gives (a copy of another table's id) needs no
# sequence. AUTOINCREMENT needs one (ids never reused).
for my $k (keys %lite) {
	next unless $lite{$k} =~ /^(.*) identity\?$/;
	my $plain = $1;
	$lite{$k} = (defined $pg{$k} && $pg{$k} eq "$plain identity") ? "$plain identity" : $plain;
}

my $diffs = 0;
my %all = map { $_ => 1 } keys %lite, keys %pg;
for my $k (sort keys %all) {
	my ($l, $p) = ($lite{$k}, $pg{$k});
	if (defined $l && defined $p && $l eq $p) {
		print "= $k: $l\n" if $list;
		next;
	}
	$diffs++;
	print "$k:\n";
	print "  sqlite:     ", $l // '(none)', "\n";
	print "  postgresql: ", $p // '(none)', "\n";
}
if ($diffs) {
	print "$diffs differences\n";
	exit 1;
}
print "schemas equal\n";
exit 0;
