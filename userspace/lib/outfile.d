/work/main/userspace/lib/outfile.o: /work/main/userspace/lib/outfile.c \
 /work/main/userspace/lib/outfile.h
/work/main/userspace/lib/outfile.h:
