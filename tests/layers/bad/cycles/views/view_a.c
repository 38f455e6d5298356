/* Planted: view_a.c and view_b.c call each other (a call circle). */
int view_b(int n);

int view_a(int n)
{
	return n > 0 ? view_b(n - 1) : 0;
}
