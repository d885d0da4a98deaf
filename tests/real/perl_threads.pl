# 16 perl ithreads draining a Thread::Queue into a shared, locked sum.
use threads; use threads::shared; use Thread::Queue;
my $q = Thread::Queue->new(); my $sum :shared = 0;
my @w = map { threads->create(sub { while (defined(my $x = $q->dequeue())) { lock($sum); $sum += $x; } }) } 1..16;
$q->enqueue($_) for 1..20000; $q->end(); $_->join for @w; print "sum $sum\n";
