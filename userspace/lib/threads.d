/work/main/userspace/lib/threads.o: /work/main/userspace/lib/threads.c \
 /work/main/userspace/include/nanograph.h \
 /work/main/userspace/lib/outfile.h
/work/main/userspace/include/nanograph.h:
/work/main/userspace/lib/outfile.h:
