/* Not a circle: view_c.c calls view_a.c, nothing calls back. */
int view_a(int n);

int view_c(void)
{
	return view_a(3);
}
