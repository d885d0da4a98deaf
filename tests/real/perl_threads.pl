# 16 perl ithreads draining a Thread::Queue into a shared, locked sum.
# Under the runner's weft pass (WEFT_EXPECT=1): stop unless libweft.so is
# mapped into this process (as tests/preload/weft_check.h).
BEGIN { if (($ENV{WEFT_EXPECT} // '') eq '1') { open(my $m, '<', '/proc/self/maps') or exit 99;
  local $/; my $maps = <$m>; if ($maps !~ /libweft\.so/) { print STDERR "test: WEFT_EXPECT=1 but libweft.so is not loaded\n"; exit 99; } } }
use threads; use threads::shared; use Thread::Queue;
my $q = Thread::Queue->new(); my $sum :shared = 0;
my @w = map { threads->create(sub { while (defined(my $x = $q->dequeue())) { lock($sum); $sum += $x; } }) } 1..16;
$q->enqueue($_) for 1..20000; $q->end(); $_->join for @w; print "sum $sum\n";
