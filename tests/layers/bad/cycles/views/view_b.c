/* Planted: view_b.c calls back into view_a.c. */
int view_a(int n);

int view_b(int n)
{
	return view_a(n);
}
