"""polyfuse.einsum and polyfuse.spec: tensor notation -> loop-nest source compiled by @kernel, with
BLAS staging and reusable workspaces.  A client of the kernel API; nothing below it imports it.
"""
